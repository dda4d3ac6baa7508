/**
 * The account list of the admin API (Mastodon's AccountFilter): every
 * account the server knows, local and remote, newest first, filtered by
 * origin, moderation status, role, name, domain, address or IP, one page of
 * ids at a time (the entity loader serializes them).
 */
import { and, type SQL, sql } from "drizzle-orm";
import { newestFirst, pageWindow } from "./id_paging.ts";
import type { Executor } from "../connection.ts";
import { accounts } from "../schema/mod.ts";

/** Moderation statuses a list can be narrowed to. */
export const ACCOUNT_STATUSES = [
  "active",
  "pending",
  "disabled",
  "silenced",
  "suspended",
  "sensitized",
] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** The filters, already validated by the caller. */
export interface AdminAccountFilter {
  origin?: "local" | "remote";
  status?: AccountStatus;
  /** users.role values to keep (from permissions or role ids); empty: nothing matches. */
  roles?: readonly string[];
  /** Prefix of the username, case-insensitive. */
  username?: string;
  /** Prefix of the display name, case-insensitive. */
  displayName?: string;
  /** Exact domain, case-insensitive. */
  byDomain?: string;
  /** Prefix of the e-mail address, case-insensitive. */
  email?: string;
  /** An address or CIDR range (already checked to be one) a user signed in from. */
  ip?: string;
  /** Nothing matches (a filter that names nothing Rookery has, such as an inviter). */
  none?: boolean;
}

export interface IdPage {
  maxId: string | null;
  sinceId: string | null;
  minId: string | null;
  limit: number;
}

/** LIKE pattern matching `value` as a literal prefix. */
function prefixPattern(value: string): string {
  return `${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const USER_OF = sql`(SELECT u.id FROM users u WHERE u.account_id = ${accounts.id})`;

function statusCondition(status: AccountStatus): SQL {
  switch (status) {
    case "active":
      return sql`${accounts.suspendedAt} IS NULL AND ${accounts.deletedAt} IS NULL`;
    case "pending":
      return sql`EXISTS (SELECT 1 FROM users u WHERE u.account_id = ${accounts.id}
        AND NOT u.approved)`;
    case "disabled":
      return sql`EXISTS (SELECT 1 FROM users u WHERE u.account_id = ${accounts.id} AND u.disabled)`;
    case "silenced":
      return sql`${accounts.silencedAt} IS NOT NULL`;
    case "suspended":
      // Deleted accounts are kept as suspended tombstones, as Mastodon keeps them.
      return sql`(${accounts.suspendedAt} IS NOT NULL OR ${accounts.deletedAt} IS NOT NULL)`;
    case "sensitized":
      return sql`${accounts.sensitizedAt} IS NOT NULL`;
  }
}

function conditions(filter: AdminAccountFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.none) where.push(sql`false`);
  if (filter.origin === "local") where.push(sql`${accounts.domain} IS NULL`);
  if (filter.origin === "remote") where.push(sql`${accounts.domain} IS NOT NULL`);
  if (filter.status) where.push(statusCondition(filter.status));
  if (filter.roles) {
    where.push(
      filter.roles.length === 0 ? sql`false` : sql`EXISTS (SELECT 1 FROM users u
        WHERE u.account_id = ${accounts.id} AND u.role = ANY(${
        sql.param([...filter.roles])
      }::text[]))`,
    );
  }
  if (filter.username) {
    where.push(
      sql`lower(${accounts.username}) LIKE ${prefixPattern(filter.username.toLowerCase())}`,
    );
  }
  if (filter.displayName) {
    where.push(sql`${accounts.displayName} ILIKE ${prefixPattern(filter.displayName)}`);
  }
  if (filter.byDomain) {
    where.push(sql`lower(${accounts.domain}) = ${filter.byDomain.toLowerCase()}`);
  }
  if (filter.email) {
    where.push(sql`EXISTS (SELECT 1 FROM users u WHERE u.account_id = ${accounts.id}
      AND lower(u.email) LIKE ${prefixPattern(filter.email.toLowerCase())})`);
  }
  if (filter.ip) {
    // Only well-formed addresses are cast (a stored oddity must not fail the query).
    where.push(sql`EXISTS (SELECT 1 FROM web_sessions ws WHERE ws.user_id = ${USER_OF}
      AND CASE WHEN ws.ip ~ '^[0-9A-Fa-f:.]{2,45}$' AND ws.ip ~ '[.:]'
        THEN ws.ip::inet <<= ${filter.ip}::inet ELSE false END)`);
  }
  return where;
}

/** One page of account ids matching `filter`, newest first. */
export async function listAdminAccountIds(
  db: Executor,
  filter: AdminAccountFilter,
  page: IdPage,
): Promise<string[]> {
  const window = pageWindow(accounts.id, page);
  const rows = await db.select({ id: accounts.id }).from(accounts)
    .where(and(...conditions(filter), window.where)).orderBy(window.order).limit(page.limit);
  return newestFirst(rows.map((r) => r.id), window.reverse);
}

/** Whether `value` is an IPv4/IPv6 address or CIDR range PostgreSQL's inet takes. */
export function isIpOrRange(value: string): boolean {
  const [address, bits, ...rest] = value.split("/");
  if (rest.length) return false;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  const maxBits = v4 ? 32 : 128;
  if (v4) {
    if (v4.slice(1).some((n) => Number(n) > 255)) return false;
  } else {
    // IPv6: hex groups and colons, at most one "::", an optional dotted tail.
    if (!/^[0-9A-Fa-f:.]{2,45}$/.test(address) || !address.includes(":")) return false;
    try {
      new URL(`http://[${address}]/`);
    } catch {
      return false;
    }
  }
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= maxBits;
}
