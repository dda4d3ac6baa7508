/**
 * The staff account pages (permission manage_users):
 * - GET /admin/accounts: the list, filtered as the admin API's v2 list
 *   (origin, status, username, display name, domain; e-mail and IP for
 *   roles with manage_user_access), newest first, paged by id.
 * - GET /admin/accounts/:id: one account, its warnings and reports.
 * - POST /admin/accounts/:id/{approve,reject,enable,unsilence,unsensitive,
 *   unsuspend,action,delete}: the commands of
 *   actors/moderation/account_actions.ts, called exactly as the admin API
 *   calls them (same Moderator, same audit rows), then a 303 back with a
 *   notice. A refusal re-renders the account with the reason: 403 for a
 *   role that does not outrank the account's, 422 for invalid input, 404
 *   for an unknown account.
 */
import { type Context, Hono } from "hono";
import { eq } from "drizzle-orm";
import type { ApiEnv } from "../../../api/env.ts";
import { ApiError } from "../../../api/errors.ts";
import { params } from "../../../api/params.ts";
import { readBoolean } from "../../../api/readers.ts";
import { readPageParams } from "../../../api/pagination.ts";
import { loadAdminAccount, loadAdminAccounts } from "../../../api/entities/admin_account.ts";
import { listAdminAccountIds } from "../../../db/queries/admin_accounts.ts";
import {
  accountFilterOf,
  type AccountQuery,
  readAccountQuery,
} from "../../../api/routes/admin/account_filter.ts";
import { accountWarningsOf } from "../../../db/queries/account_warnings.ts";
import { isId } from "../../../db/ids.ts";
import { accounts, users } from "../../../db/schema/mod.ts";
import { hasPermission, outranks } from "../../../model/permissions.ts";
import { listReports } from "../../../actors/moderation/reports.ts";
import {
  approveAccount,
  deleteAccountData,
  enableAccount,
  performAction,
  rejectAccount,
  unsensitiveAccount,
  unsilenceAccount,
  unsuspendAccountCommand,
} from "../../../actors/moderation/account_actions.ts";
import { registerNotices } from "../../pages/admin/layout.tsx";
import { AccountList, accountListUrl } from "../../pages/admin/accounts.tsx";
import { AccountPage } from "../../pages/admin/account.tsx";
import { type ActionDraft, handleOf } from "../../pages/admin/components.tsx";
import { staffModerator, staffPage } from "./session.ts";
import { actionDraftOf, readActionInput } from "./action_form.ts";
import {
  attempt,
  pageLinks,
  redirectWithNotice,
  type Refusal,
  refusalOf,
  sendFramed,
  sendNotFound,
} from "./page_frame.tsx";
import { flushDiscardedMedia } from "../../../actors/media/discarded.ts";

registerNotices({
  account_approved: "The account was approved.",
  account_rejected: "The sign-up was rejected and the account removed.",
  account_enabled: "The account can sign in again.",
  account_unsilenced: "The limit was lifted.",
  account_unsensitive: "Media are no longer forced sensitive.",
  account_unsuspended: "The suspension was lifted.",
  account_action: "The action was taken and the warning recorded.",
  account_data_deleted: "The account's data was deleted.",
});

const GATE = staffPage("manage_users");
/** Rows per page of the list. */
const LIST_PAGE = { default: 40, max: 100 } as const;
/** How many warnings and reports (of each state) the account page shows. */
const SHOWN = 20;

async function listPage(c: Context<ApiEnv>): Promise<Response> {
  const { config, database } = c.get("ctx");
  const p = await params(c);
  const accessFilters = hasPermission(c.get("staff")!.user.role, "manage_user_access");
  let query: AccountQuery;
  try {
    query = readAccountQuery(p, accessFilters);
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return await sendFramed(c, {
      title: "Accounts",
      section: "accounts",
      alert: refusal.message,
      status: refusal.status,
      body: (
        <AccountList rows={[]} query={{}} accessFilters={accessFilters} newer={null} older={null} />
      ),
    });
  }
  const filter = accountFilterOf(query);
  const page = readPageParams(p, LIST_PAGE);
  const ids = await listAdminAccountIds(database.db, filter, page);
  const rows = await loadAdminAccounts(database.db, config, ids);
  const { newer, older } = pageLinks(
    page,
    LIST_PAGE,
    ids,
    (cursor) => accountListUrl(query, cursor),
  );
  return await sendFramed(c, {
    title: "Accounts",
    section: "accounts",
    body: (
      <AccountList
        rows={rows}
        query={query}
        accessFilters={accessFilters}
        newer={newer}
        older={older}
      />
    ),
  });
}

/** Renders one account (after a refusal: with its reason and the form as it was sent). */
async function accountPage(
  c: Context<ApiEnv>,
  id: string,
  refused?: { refusal: Refusal; form?: ActionDraft },
): Promise<Response> {
  const { config, database } = c.get("ctx");
  const db = database.db;
  if (!isId(id)) return await sendNotFound(c, "accounts");
  const [a, [row], warnings, open, resolved] = await Promise.all([
    loadAdminAccount(db, config, id),
    db.select({
      deletedAt: accounts.deletedAt,
      suspensionOrigin: accounts.suspensionOrigin,
      publicKeys: accounts.publicKeys,
      role: users.role,
    }).from(accounts).leftJoin(users, eq(users.accountId, accounts.id))
      .where(eq(accounts.id, id)).limit(1),
    accountWarningsOf(db, id, SHOWN),
    listReports(db, { resolved: false, targetAccountId: id }, { limit: SHOWN }),
    listReports(db, { resolved: true, targetAccountId: id }, { limit: SHOWN }),
  ]);
  if (!a || !row) return await sendNotFound(c, "accounts");
  const session = c.get("staff")!;
  const role = session.user.role;
  const reportId = c.req.query("report_id");
  return await sendFramed(c, {
    title: `@${handleOf(a)}`,
    section: "accounts",
    alert: refused?.refusal.message,
    status: refused?.refusal.status,
    body: (
      <AccountPage
        a={a}
        viewer={{
          csrfToken: session.csrfToken,
          mayAct: row.role == null || outranks(role, row.role),
          mayDeleteData: hasPermission(role, "delete_user_data"),
          seesAccess: hasPermission(role, "manage_user_access"),
        }}
        remoteSuspension={row.suspensionOrigin === "remote"}
        deleted={row.deletedAt != null}
        keys={row.publicKeys}
        warnings={warnings}
        reports={[...open, ...resolved]}
        form={refused?.form ?? { reportId: isId(reportId) ? reportId : undefined }}
      />
    ),
  });
}

/**
 * Runs a command on the account of the path: a redirect with `notice` when
 * it is done, the account with the reason when it is refused.
 */
async function runOn(
  c: Context<ApiEnv>,
  notice: string,
  fn: (id: string) => Promise<unknown>,
  options: { form?: ActionDraft; after?: string } = {},
): Promise<Response> {
  const id = c.req.param("id") ?? "";
  if (!isId(id)) return await sendNotFound(c, "accounts");
  const refusal = await attempt(() => fn(id));
  if (refusal?.status === 404) return await sendNotFound(c, "accounts");
  if (refusal) return await accountPage(c, id, { refusal, form: options.form });
  return redirectWithNotice(c, options.after ?? `/admin/accounts/${id}`, notice);
}

export function accountPages(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/admin/accounts", GATE, listPage);
  app.get("/admin/accounts/:id", GATE, (c) => accountPage(c, c.req.param("id")));

  const simple = {
    approve: [approveAccount, "account_approved"],
    enable: [enableAccount, "account_enabled"],
    unsilence: [unsilenceAccount, "account_unsilenced"],
    unsensitive: [unsensitiveAccount, "account_unsensitive"],
    unsuspend: [unsuspendAccountCommand, "account_unsuspended"],
  } as const;
  for (const [name, [command, notice]] of Object.entries(simple)) {
    app.post(
      `/admin/accounts/:id/${name}`,
      GATE,
      (c) => runOn(c, notice, (id) => command(c.get("ctx").database.db, staffModerator(c), id)),
    );
  }

  // The account is gone afterwards: back to the sign-ups still waiting.
  app.post("/admin/accounts/:id/reject", GATE, (c) =>
    runOn(
      c,
      "account_rejected",
      (id) => rejectAccount(c.get("ctx").database.db, staffModerator(c), id),
      { after: "/admin/accounts?status=pending" },
    ));

  app.post("/admin/accounts/:id/action", GATE, async (c) => {
    const p = await params(c);
    const ctx = c.get("ctx");
    return await runOn(
      c,
      "account_action",
      (id) => performAction(ctx.database.db, ctx, staffModerator(c), id, readActionInput(p)),
      { form: actionDraftOf(p) },
    );
  });

  app.post("/admin/accounts/:id/delete", GATE, async (c) => {
    const p = await params(c);
    return await runOn(c, "account_data_deleted", async (id) => {
      if (!readBoolean(p, "confirm")) {
        throw new ApiError(422, "Tick the confirmation box to delete the account's data");
      }
      const { config, database } = c.get("ctx");
      await deleteAccountData(database.db, staffModerator(c), id);
      await flushDiscardedMedia(database.db, config);
    });
  });
  return app;
}
