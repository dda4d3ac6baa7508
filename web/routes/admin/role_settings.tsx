/**
 * The staff pages of Mastodon 4.7's role and server settings, over the
 * actors the admin command line uses (admin/role_commands.ts), each change
 * with its audit row:
 * - GET /admin/roles, POST /admin/roles/:role (permission manage_roles):
 *   require two-factor sign-in, collection limit, e-mail subscriptions.
 *   Only what differs from the stored settings is changed, so that an admin
 *   saving its own role does not touch its two-factor requirement, which
 *   only the owner may change (roleChangeRefusal); no role above one's own.
 * - GET /admin/settings, POST /admin/settings (permission manage_settings):
 *   the server's e-mail subscription switch.
 * A refusal re-renders the page with the reason (403, 404 or 422).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import {
  allRoleSettings,
  changeRoleSettings,
  MAX_COLLECTION_LIMIT,
  parseCollectionLimit,
  roleChangeRefusal,
  ROLES,
  type RoleSettings,
  type RoleSettingsChange,
} from "../../../actors/roles/role_settings.ts";
import { changeServerSetting, serverSetting } from "../../../actors/settings/server_settings.ts";
import { registerNotices } from "../../pages/admin/layout.tsx";
import { RolesPage, ServerSettingsPage } from "../../pages/admin/role_settings.tsx";
import { staffModerator, staffPage } from "./session.ts";
import { redirectWithNotice, type Refusal, sendFramed, sendNotFound } from "./page_frame.tsx";

registerNotices({
  role_updated: "The role's settings were saved.",
  role_unchanged: "Nothing was changed.",
  settings_updated: "The settings were saved.",
});

const ROLES_GATE = staffPage("manage_roles");
const SETTINGS_GATE = staffPage("manage_settings");

/** A checkbox of the form: absent (unticked) is false, as the domain block form reads it. */
function ticked(p: Params, key: string): boolean {
  const value = p[key];
  return typeof value === "string" && ["true", "1", "on"].includes(value);
}

/** The roles page, with a refusal's reason when there is one. */
async function rolesPage(c: Context<ApiEnv>, refusal?: Refusal): Promise<Response> {
  const actorRole = staffModerator(c).role;
  const roles = await allRoleSettings(c.get("ctx").database.db);
  const editable = ROLES.filter((r) => roleChangeRefusal(actorRole, r, {}) == null);
  return await sendFramed(c, {
    title: "Roles",
    section: "roles",
    alert: refusal?.message,
    status: refusal?.status,
    body: (
      <RolesPage
        roles={roles}
        editable={editable}
        token={c.get("staff")!.csrfToken}
        max={MAX_COLLECTION_LIMIT}
      />
    ),
  });
}

/** What the form changes of `current`, or a refusal when its limit is not a number in range. */
function changeOf(p: Params, current: RoleSettings): RoleSettingsChange | Refusal {
  const rawLimit = typeof p.collection_limit === "string" ? p.collection_limit : "";
  const limit = parseCollectionLimit(rawLimit.slice(0, 20));
  if (limit == null) {
    return {
      status: 422,
      message:
        `Validation failed: Collection limit must be a number from 0 to ${MAX_COLLECTION_LIMIT}`,
    };
  }
  const wanted = {
    requireTwoFactor: ticked(p, "require_two_factor"),
    collectionLimit: limit,
    emailSubscriptions: ticked(p, "email_subscriptions"),
  };
  const change: RoleSettingsChange = {};
  for (const key of Object.keys(wanted) as (keyof typeof wanted)[]) {
    if (wanted[key] !== current[key]) Object.assign(change, { [key]: wanted[key] });
  }
  return change;
}

async function saveRole(c: Context<ApiEnv>): Promise<Response> {
  const role = c.req.param("role")!;
  const db = c.get("ctx").database.db;
  const current = (await allRoleSettings(db)).find((r) => r.role === role);
  if (!current) return await sendNotFound(c, "roles");
  const change = changeOf(await params(c), current);
  if ("status" in change) return await rolesPage(c, change);
  const actor = staffModerator(c);
  const refused = roleChangeRefusal(actor.role, role, change);
  if (refused) return await rolesPage(c, { status: 403, message: refused });
  if (Object.keys(change).length === 0) {
    return redirectWithNotice(c, "/admin/roles", "role_unchanged");
  }
  await changeRoleSettings(db, role, change, actor.accountId);
  return redirectWithNotice(c, "/admin/roles", "role_updated");
}

async function settingsPage(c: Context<ApiEnv>): Promise<Response> {
  const { database, config } = c.get("ctx");
  return await sendFramed(c, {
    title: "Server settings",
    section: "settings",
    body: (
      <ServerSettingsPage
        emailSubscriptions={await serverSetting(database.db, "email_subscriptions")}
        operatorAllows={config.emailSubscriptions.enabled}
        token={c.get("staff")!.csrfToken}
      />
    ),
  });
}

export function roleSettingsPages(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/admin/roles", ROLES_GATE, (c) => rolesPage(c));
  app.post("/admin/roles/:role", ROLES_GATE, saveRole);
  app.get("/admin/settings", SETTINGS_GATE, settingsPage);
  app.post("/admin/settings", SETTINGS_GATE, async (c) => {
    const db = c.get("ctx").database.db;
    const wanted = ticked(await params(c), "email_subscriptions");
    if (wanted !== await serverSetting(db, "email_subscriptions")) {
      await changeServerSetting(db, "email_subscriptions", wanted, staffModerator(c).accountId);
    }
    return redirectWithNotice(c, "/admin/settings", "settings_updated");
  });
  return app;
}
