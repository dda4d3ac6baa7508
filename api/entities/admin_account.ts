/**
 * The Admin::Account entity (Mastodon 4.5, REST::Admin::AccountSerializer):
 * what staff see of an account, local or remote, with its user's sign-up
 * facts and its moderation state, and the public Account entity inside.
 *
 * Remote accounts have no user: like Mastodon (whose user-delegated
 * attributes are nil then) their email, confirmed, approved, disabled,
 * locale and role are null. `created_by_application_id` (the app a user
 * registered through) and `invited_by_account_id` are left out when there is
 * nothing to say, as Mastodon leaves them out (Rookery has no invites).
 *
 * {@link loadAdminAccounts} serializes any number of accounts in a fixed
 * number of queries (the accounts with their users, their sign-in IPs, and
 * the public entities through {@link loadAccountEntities}).
 */
import { desc, eq, sql } from "drizzle-orm";
import type { MediaUrls } from "../../actors/media/urls.ts";
import type { Executor } from "../../db/connection.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { accounts, users, webSessions } from "../../db/schema/mod.ts";
import { type Account, loadAccountEntities } from "./account.ts";
import { type Role, roleEntity } from "./credential_account.ts";

/** An IP address an account's user signed in from (Admin::Ip). */
export interface AdminIp {
  ip: string;
  used_at: string;
}

/** The Admin::Account entity. */
export interface AdminAccount {
  id: string;
  username: string;
  domain: string | null;
  created_at: string;
  email: string | null;
  ip: string | null;
  ips: AdminIp[];
  locale: string | null;
  invite_request: string | null;
  role: Role | null;
  confirmed: boolean | null;
  approved: boolean | null;
  disabled: boolean | null;
  silenced: boolean;
  suspended: boolean;
  sensitized: boolean;
  account: Account;
  created_by_application_id?: string;
  invited_by_account_id?: string;
}

/** What the entity needs of an account row. */
export interface AdminAccountRow {
  id: string;
  username: string;
  domain: string | null;
  createdAt: Date;
  suspendedAt: Date | null;
  silencedAt: Date | null;
  sensitizedAt: Date | null;
}

/** What the entity needs of a user row (null for remote accounts). */
export interface AdminUserRow {
  email: string;
  role: string;
  confirmedAt: Date | null;
  approved: boolean;
  disabled: boolean;
  locale: string;
  reason: string | null;
  createdAt: Date;
  /** The application the user registered through (the API's sign-up), if any. */
  createdByApplicationId?: string | null;
}

/** How many distinct addresses one account shows (Mastodon lists a user's recent ones). */
const MAX_IPS = 20;

/** Serializes one account from its rows; pure. `ips` newest first. */
export function adminAccountEntity(
  row: AdminAccountRow,
  user: AdminUserRow | null,
  ips: readonly AdminIp[],
  account: Account,
): AdminAccount {
  return {
    id: row.id,
    username: row.username,
    domain: row.domain,
    // Mastodon shows when the user signed up, else when the account was first seen.
    created_at: (user?.createdAt ?? row.createdAt).toISOString(),
    email: user?.email ?? null,
    ip: ips[0]?.ip ?? null,
    ips: [...ips],
    locale: user?.locale ?? null,
    invite_request: user?.reason ?? null,
    role: user ? roleEntity(user.role) : null,
    confirmed: user ? user.confirmedAt != null : null,
    approved: user ? user.approved : null,
    disabled: user ? user.disabled : null,
    silenced: row.silencedAt != null,
    suspended: row.suspendedAt != null,
    sensitized: row.sensitizedAt != null,
    account,
    ...(user?.createdByApplicationId
      ? { created_by_application_id: user.createdByApplicationId }
      : {}),
  };
}

/** The sign-in addresses of the accounts' users, newest use first, by account id. */
async function loadIps(db: Executor, ids: string[]): Promise<Map<string, AdminIp[]>> {
  const byAccount = new Map<string, AdminIp[]>();
  if (ids.length === 0) return byAccount;
  const rows = await db.select({
    accountId: users.accountId,
    ip: webSessions.ip,
    usedAt: sql<Date>`max(${webSessions.lastSeenAt})`.mapWith(webSessions.lastSeenAt),
  }).from(webSessions).innerJoin(users, eq(users.id, webSessions.userId))
    .where(sql`${anyId(users.accountId, ids)} AND ${webSessions.ip} IS NOT NULL`)
    .groupBy(users.accountId, webSessions.ip)
    .orderBy(desc(sql`max(${webSessions.lastSeenAt})`));
  for (const row of rows) {
    const list = byAccount.get(row.accountId) ?? [];
    if (list.length < MAX_IPS && row.ip) {
      list.push({ ip: row.ip, used_at: new Date(row.usedAt).toISOString() });
    }
    byAccount.set(row.accountId, list);
  }
  return byAccount;
}

/**
 * Loads and serializes accounts by id, in the order given; unknown ids are
 * skipped. Three queries, plus what the public entities need.
 */
export async function loadAdminAccounts(
  db: Executor,
  urls: MediaUrls,
  ids: readonly string[],
): Promise<AdminAccount[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const [rows, ips, publics] = await Promise.all([
    db.select({
      id: accounts.id,
      username: accounts.username,
      domain: accounts.domain,
      createdAt: accounts.createdAt,
      suspendedAt: accounts.suspendedAt,
      silencedAt: accounts.silencedAt,
      sensitizedAt: accounts.sensitizedAt,
      user: {
        id: users.id,
        email: users.email,
        role: users.role,
        confirmedAt: users.confirmedAt,
        approved: users.approved,
        disabled: users.disabled,
        locale: users.locale,
        reason: users.reason,
        createdAt: users.createdAt,
        createdByApplicationId: users.createdByApplicationId,
      },
    }).from(accounts).leftJoin(users, eq(users.accountId, accounts.id))
      .where(anyId(accounts.id, unique)),
    loadIps(db, unique),
    loadAccountEntities(db, urls, unique),
  ]);
  const publicById = new Map(publics.map((a) => [a.id, a]));
  const byId = new Map<string, AdminAccount>();
  for (const { user, ...row } of rows) {
    const account = publicById.get(row.id);
    if (!account) continue;
    const userRow = user?.id != null ? user : null;
    byId.set(row.id, adminAccountEntity(row, userRow, ips.get(row.id) ?? [], account));
  }
  return ids.map((id) => byId.get(id)).filter((a): a is AdminAccount => a != null);
}

/** One account's entity, or null when there is no such account. */
export async function loadAdminAccount(
  db: Executor,
  urls: MediaUrls,
  id: string,
): Promise<AdminAccount | null> {
  return (await loadAdminAccounts(db, urls, [id]))[0] ?? null;
}
