/**
 * The admin accounts API (Mastodon's Api::V1::Admin::AccountsController and
 * Api::V2::Admin::AccountsController). Every route: a staff token with the
 * admin scope and a role holding manage_users (requireStaff).
 *
 * - GET /api/v1/admin/accounts (admin:read:accounts), by default the active
 *   local accounts as in Mastodon (so `by_domain` needs `remote`): local, remote,
 *   by_domain, active, pending, disabled, silenced, suspended, sensitized,
 *   username, display_name, email, ip, staff; max_id, since_id, min_id,
 *   limit (100, at most 200) → Admin::Account[] with a Link header.
 * - GET /api/v2/admin/accounts: origin, status, permissions, role_ids[],
 *   invited_by, username, display_name, by_domain, email, ip; same paging.
 * - GET /api/v1/admin/accounts/:id → Admin::Account.
 * - POST …/:id/approve, reject, action, enable, unsilence, unsuspend,
 *   unsensitive and DELETE …/:id (admin:write:accounts): the commands of
 *   actors/moderation/account_actions.ts, answering Admin::Account (action:
 *   an empty object, as Mastodon).
 *
 * Errors: 404 unknown account or report; 403 acting on a role not below
 * one's own, unsuspending what another server suspended, deleting data not
 * suspended by us or without delete_user_data; 422 approving or rejecting
 * an account not pending, an unknown action type; 400 unknown origin,
 * status or permissions values (Mastodon's InvalidParameterError).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { type Params, params } from "../../params.ts";
import { readBoolean, readString, readStringArray } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { withValidation } from "../../validation_errors.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../../pagination.ts";
import { ROLE_BADGES } from "../../entities/account.ts";
import { loadAdminAccount, loadAdminAccounts } from "../../entities/admin_account.ts";
import {
  ACCOUNT_STATUSES,
  type AdminAccountFilter,
  listAdminAccountIds,
} from "../../../db/queries/admin_accounts.ts";
import { accountFilterOf, filterText, readAccountQuery, readTextQuery } from "./account_filter.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { rolesWith } from "../../../model/permissions.ts";
import { flushDiscardedMedia } from "../../../actors/media/discarded.ts";
import {
  approveAccount,
  deleteAccountData,
  enableAccount,
  type Moderator,
  NotAllowedError,
  performAction,
  rejectAccount,
  unsensitiveAccount,
  unsilenceAccount,
  unsuspendAccountCommand,
} from "../../../actors/moderation/account_actions.ts";

const READ = requireStaff("manage_users", "admin:read:accounts");
const WRITE = requireStaff("manage_users", "admin:write:accounts");

function moderatorOf(c: Context<ApiEnv>): Moderator {
  const user = c.get("user")!;
  return { accountId: user.accountId, role: user.role };
}

/** Maps a command's refusals to Mastodon's answers. */
async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await withValidation(fn);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    if (error instanceof NotAllowedError) throw new ApiError(403, error.message);
    throw error;
  }
}

/** The roles whose ids Mastodon's Role entity shows (the "everyone" role is -99). */
function rolesOfIds(ids: readonly string[]): string[] {
  const byId = new Map(Object.entries(ROLE_BADGES).map(([role, badge]) => [badge.id, role]));
  byId.set("-99", "user");
  return ids.map((id) => byId.get(id)).filter((r): r is string => r != null);
}

/** v1 lists active local accounts unless told otherwise (Mastodon's defaults). */
function v1Filter(p: Params): AdminAccountFilter {
  const filter: AdminAccountFilter = {
    ...accountFilterOf(readTextQuery(p)),
    origin: "local",
    status: "active",
  };
  if (readBoolean(p, "remote")) filter.origin = "remote";
  for (const status of ACCOUNT_STATUSES) {
    if (readBoolean(p, status)) filter.status = status;
  }
  if (readBoolean(p, "staff")) filter.roles = rolesWith("manage_reports");
  return filter;
}

function v2Filter(p: Params): AdminAccountFilter {
  const filter = accountFilterOf(readAccountQuery(p));
  const permissions = filterText(p, "permissions");
  if (permissions) {
    if (permissions !== "staff") {
      throw new ApiError(400, `Unknown permissions: ${permissions.slice(0, 40)}`);
    }
    filter.roles = rolesWith("manage_reports");
  }
  const roleIds = readStringArray(p, "role_ids", { maxItems: 100 });
  if (roleIds && roleIds.length) {
    const roles = rolesOfIds(roleIds);
    filter.roles = filter.roles ? filter.roles.filter((r) => roles.includes(r)) : roles;
  }
  // Rookery has no invites, so no account was invited by anyone.
  if (filterText(p, "invited_by")) filter.none = true;
  return filter;
}

async function list(c: Context<ApiEnv>, filterOf: (p: Params) => AdminAccountFilter) {
  const p = await params(c);
  const filter = filterOf(p);
  const page = readPageParams(p, PAGE_SIZES.admin);
  const ctx = c.get("ctx");
  const ids = await listAdminAccountIds(ctx.database.db, filter, page);
  const entities = await loadAdminAccounts(ctx.database.db, ctx.config, ids);
  setPaginationHeaders(c, entities, (a) => a.id, { hasMore: ids.length === page.limit });
  return c.json(entities);
}

async function show(c: Context<ApiEnv>, id: string) {
  const ctx = c.get("ctx");
  const entity = await loadAdminAccount(ctx.database.db, ctx.config, id);
  if (!entity) throw new ApiError(404, "Record not found");
  return c.json(entity);
}

/** The admin account routes, mounted at the root of the app. */
export function adminAccountRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  // Validated here so that a bad id is a 404 before any query.
  const idOf = (c: Context<ApiEnv>) => {
    const id = c.req.param("id") ?? "";
    if (!/^\d{1,19}$/.test(id)) throw new ApiError(404, "Record not found");
    return id;
  };

  app.get("/api/v1/admin/accounts", READ, (c) => list(c, v1Filter));
  app.get("/api/v2/admin/accounts", READ, (c) => list(c, v2Filter));
  app.get("/api/v1/admin/accounts/:id", READ, (c) => show(c, idOf(c)));

  const simple = {
    approve: approveAccount,
    reject: rejectAccount,
    enable: enableAccount,
    unsilence: unsilenceAccount,
    unsensitive: unsensitiveAccount,
    unsuspend: unsuspendAccountCommand,
  } as const;
  for (const [name, commandFn] of Object.entries(simple)) {
    app.post(`/api/v1/admin/accounts/:id/${name}`, WRITE, async (c) => {
      const id = idOf(c);
      const db = c.get("ctx").database.db;
      if (name === "reject") {
        // The account is gone afterwards: serialize it first, as Mastodon answers with it.
        const before = await loadAdminAccount(db, c.get("ctx").config, id);
        await run(() => commandFn(db, moderatorOf(c), id));
        return c.json(before);
      }
      await run(() => commandFn(db, moderatorOf(c), id));
      return show(c, id);
    });
  }

  app.post("/api/v1/admin/accounts/:id/action", WRITE, async (c) => {
    const id = idOf(c);
    const p = await params(c);
    const ctx = c.get("ctx");
    const input = {
      type: readString(p, "type", { maxLength: 64 }) ?? "",
      reportId: readString(p, "report_id", { maxLength: 64 }),
      warningPresetId: readString(p, "warning_preset_id", { maxLength: 64 }),
      text: readString(p, "text", { allowBlank: true }),
      sendEmailNotification: readBoolean(p, "send_email_notification"),
    };
    await run(() => performAction(ctx.database.db, ctx, moderatorOf(c), id, input));
    return c.json({});
  });

  app.delete("/api/v1/admin/accounts/:id", WRITE, async (c) => {
    const id = idOf(c);
    const ctx = c.get("ctx");
    await run(() => deleteAccountData(ctx.database.db, moderatorOf(c), id));
    // Its media files leave the store now that the purge committed.
    await flushDiscardedMedia(ctx.database.db, ctx.config);
    return show(c, id);
  });
  return app;
}
