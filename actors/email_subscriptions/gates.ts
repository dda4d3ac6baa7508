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

/** What the gates say of an account: whether it may take subscriptions, and whether it does. */
export interface SubscriptionGates {
  account: SubscribableAccount;
  /** Gate 4: the owner opted in. */
  optedIn: boolean;
}

/**
 * Gates 1, 2, 3 and 5 for an account (null when one fails), with the
 * owner's opt-in (gate 4) beside: the owner's settings page shows its
 * switch when the others hold.
 */
export async function subscriptionGates(
  db: Executor,
  config: Pick<Config, "emailSubscriptions">,
  accountId: string,
): Promise<SubscriptionGates | null> {
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
  if (!row || !(await settingsOfRole(db, row.role)).emailSubscriptions) return null;
  return {
    account: { id: row.id, username: row.username, displayName: row.displayName },
    optedIn: row.settings?.email_subscriptions_enabled === true,
  };
}

/** The account when its subscriptions are open (all gates hold), else null. */
export async function subscribableAccount(
  db: Executor,
  config: Pick<Config, "emailSubscriptions">,
  accountId: string,
): Promise<SubscribableAccount | null> {
  const gates = await subscriptionGates(db, config, accountId);
  return gates?.optedIn ? gates.account : null;
}
