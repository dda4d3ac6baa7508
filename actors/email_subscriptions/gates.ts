/**
 * Whether an account takes e-mail subscriptions (Mastodon 4.7): every gate
 * must hold, else the route answers 404 as Mastodon's `head 404`.
 * 1. the operator turned them on (EMAIL_SUBSCRIPTIONS);
 * 2. an admin turned them on (server setting `email_subscriptions`);
 * 3. the account's role holds `manage_email_subscriptions` (role settings);
 * 4. the owner opted in (`users.settings.email_subscriptions_enabled`);
 * 5. the account is local, not suspended, deleted or moved.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { settingsOfRole } from "../roles/role_settings.ts";
import { serverSetting } from "../settings/server_settings.ts";

/** The account whose subscriptions are open. */
export interface SubscribableAccount {
  id: string;
  username: string;
  displayName: string;
}

/** The account when its subscriptions are open (all gates hold), else null. */
export async function subscribableAccount(
  db: Executor,
  config: Pick<Config, "emailSubscriptions">,
  accountId: string,
): Promise<SubscribableAccount | null> {
  if (!config.emailSubscriptions.enabled) return null;
  if (!await serverSetting(db, "email_subscriptions")) return null;
  const [row] = await db.select({
    id: accounts.id,
    username: accounts.username,
    displayName: accounts.displayName,
    role: users.role,
    settings: users.settings,
  }).from(accounts).innerJoin(users, eq(users.accountId, accounts.id)).where(and(
    eq(accounts.id, accountId),
    isNull(accounts.domain),
    isNull(accounts.suspendedAt),
    isNull(accounts.deletedAt),
    isNull(accounts.movedToAccountId),
  )).limit(1);
  if (!row || row.settings?.email_subscriptions_enabled !== true) return null;
  if (!(await settingsOfRole(db, row.role)).emailSubscriptions) return null;
  return { id: row.id, username: row.username, displayName: row.displayName };
}
