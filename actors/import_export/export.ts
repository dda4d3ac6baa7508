/**
 * The CSV exports of the settings pages (issue 20), in Mastodon's exact
 * formats (Export model), so Mastodon and every server that reads its files
 * can import them:
 * - following_accounts.csv: "Account address,Show boosts,Notify on new posts,Languages"
 * - followers.csv: "Account address" (Mastodon has no followers export; one column)
 * - lists.csv: list title, account address (no header)
 * - blocked_accounts.csv: one address a line (no header)
 * - muted_accounts.csv: "Account address,Hide notifications"
 * - blocked_domains.csv: one domain a line (no header)
 * - bookmarks.csv: one status URI a line (no header)
 * Each file is produced a page of rows at a time (keyset on the row id), so
 * a large account never loads everything at once.
 */
import { and, asc, count, eq, gt, isNull } from "drizzle-orm";
import { stringify } from "csv-stringify/sync";
import type { Db } from "../../db/connection.ts";
import {
  accountDomainBlocks,
  accounts,
  blocks,
  bookmarks,
  follows,
  listAccounts,
  lists,
  mutes,
  statuses,
} from "../../db/schema/mod.ts";
import { muteActive } from "../relationships/mutes.ts";

export const EXPORT_KINDS = [
  "following_accounts",
  "followers",
  "lists",
  "blocked_accounts",
  "muted_accounts",
  "blocked_domains",
  "bookmarks",
] as const;
export type ExportKind = typeof EXPORT_KINDS[number];

/** Rows read per query. */
const PAGE = 500;

const HEADERS: Partial<Record<ExportKind, string[]>> = {
  following_accounts: ["Account address", "Show boosts", "Notify on new posts", "Languages"],
  followers: ["Account address"],
  muted_accounts: ["Account address", "Hide notifications"],
};

export function isExportKind(value: string): value is ExportKind {
  return (EXPORT_KINDS as readonly string[]).includes(value);
}

/** The full address Mastodon writes: `user@domain`, our own domain for local accounts. */
function address(localDomain: string, row: { username: string; domain: string | null }): string {
  return `${row.username}@${row.domain ?? localDomain}`;
}

/** One page of rows after `after` (a row id), each with its id and its CSV cells. */
type PageReader = (
  db: Db,
  accountId: string,
  localDomain: string,
  after: string,
) => Promise<{ id: string; cells: string[] }[]>;

const bool = (value: boolean) => (value ? "true" : "false");
const liveAccount = isNull(accounts.deletedAt);

const READERS: Record<ExportKind, PageReader> = {
  following_accounts: async (db, accountId, local, after) =>
    (await db.select({
      id: follows.id,
      username: accounts.username,
      domain: accounts.domain,
      showReblogs: follows.showReblogs,
      notify: follows.notify,
      languages: follows.languages,
    }).from(follows).innerJoin(accounts, eq(accounts.id, follows.targetAccountId))
      .where(and(eq(follows.accountId, accountId), gt(follows.id, after), liveAccount))
      .orderBy(asc(follows.id)).limit(PAGE)).map((r) => ({
        id: r.id,
        cells: [
          address(local, r),
          bool(r.showReblogs),
          bool(r.notify),
          // Mastodon joins the languages with ", " (one quoted cell).
          (r.languages ?? []).join(", "),
        ],
      })),
  followers: async (db, accountId, local, after) =>
    (await db.select({ id: follows.id, username: accounts.username, domain: accounts.domain })
      .from(follows).innerJoin(accounts, eq(accounts.id, follows.accountId))
      .where(and(eq(follows.targetAccountId, accountId), gt(follows.id, after), liveAccount))
      .orderBy(asc(follows.id)).limit(PAGE)).map((r) => ({ id: r.id, cells: [address(local, r)] })),
  lists: async (db, accountId, local, after) =>
    (await db.select({
      id: listAccounts.id,
      title: lists.title,
      username: accounts.username,
      domain: accounts.domain,
    }).from(listAccounts).innerJoin(lists, eq(lists.id, listAccounts.listId))
      .innerJoin(accounts, eq(accounts.id, listAccounts.accountId))
      .where(and(eq(lists.accountId, accountId), gt(listAccounts.id, after), liveAccount))
      .orderBy(asc(listAccounts.id)).limit(PAGE)).map((r) => ({
        id: r.id,
        cells: [r.title, address(local, r)],
      })),
  blocked_accounts: async (db, accountId, local, after) =>
    (await db.select({ id: blocks.id, username: accounts.username, domain: accounts.domain })
      .from(blocks).innerJoin(accounts, eq(accounts.id, blocks.targetAccountId))
      .where(and(eq(blocks.accountId, accountId), gt(blocks.id, after), liveAccount))
      .orderBy(asc(blocks.id)).limit(PAGE)).map((r) => ({ id: r.id, cells: [address(local, r)] })),
  muted_accounts: async (db, accountId, local, after) =>
    (await db.select({
      id: mutes.id,
      username: accounts.username,
      domain: accounts.domain,
      hide: mutes.hideNotifications,
    }).from(mutes).innerJoin(accounts, eq(accounts.id, mutes.targetAccountId))
      .where(and(eq(mutes.accountId, accountId), gt(mutes.id, after), muteActive(), liveAccount))
      .orderBy(asc(mutes.id)).limit(PAGE)).map((r) => ({
        id: r.id,
        cells: [address(local, r), bool(r.hide)],
      })),
  blocked_domains: async (db, accountId, _local, after) =>
    (await db.select({ id: accountDomainBlocks.id, domain: accountDomainBlocks.domain })
      .from(accountDomainBlocks)
      .where(and(eq(accountDomainBlocks.accountId, accountId), gt(accountDomainBlocks.id, after)))
      .orderBy(asc(accountDomainBlocks.id)).limit(PAGE)).map((r) => ({
        id: r.id,
        cells: [r.domain],
      })),
  bookmarks: async (db, accountId, _local, after) =>
    (await db.select({ id: bookmarks.id, uri: statuses.uri })
      .from(bookmarks).innerJoin(statuses, eq(statuses.id, bookmarks.statusId))
      .where(and(
        eq(bookmarks.accountId, accountId),
        gt(bookmarks.id, after),
        isNull(statuses.deletedAt),
      ))
      .orderBy(asc(bookmarks.id)).limit(PAGE)).map((r) => ({ id: r.id, cells: [r.uri] })),
};

/**
 * The CSV of `kind` for `accountId`, as chunks of text (the header first
 * when the format has one, then a chunk per page of rows).
 */
export async function* exportCsv(
  db: Db,
  accountId: string,
  localDomain: string,
  kind: ExportKind,
): AsyncGenerator<string> {
  const header = HEADERS[kind];
  if (header) yield stringify([header]);
  let after = "0";
  while (true) {
    const page = await READERS[kind](db, accountId, localDomain, after);
    if (page.length === 0) return;
    yield stringify(page.map((r) => r.cells));
    if (page.length < PAGE) return;
    after = page.at(-1)!.id;
  }
}

/** How many rows each export holds, for the export page. */
export async function exportCounts(db: Db, accountId: string): Promise<Record<ExportKind, number>> {
  const n = async (query: Promise<{ n: number }[]>) => Number((await query)[0]?.n ?? 0);
  const [following, followers, listed, blocked, muted, domains, marked] = await Promise.all([
    n(
      db.select({ n: count() }).from(follows)
        .innerJoin(accounts, eq(accounts.id, follows.targetAccountId))
        .where(and(eq(follows.accountId, accountId), liveAccount)),
    ),
    n(
      db.select({ n: count() }).from(follows)
        .innerJoin(accounts, eq(accounts.id, follows.accountId))
        .where(and(eq(follows.targetAccountId, accountId), liveAccount)),
    ),
    n(
      db.select({ n: count() }).from(listAccounts).innerJoin(
        lists,
        eq(lists.id, listAccounts.listId),
      )
        .innerJoin(accounts, eq(accounts.id, listAccounts.accountId))
        .where(and(eq(lists.accountId, accountId), liveAccount)),
    ),
    n(
      db.select({ n: count() }).from(blocks)
        .innerJoin(accounts, eq(accounts.id, blocks.targetAccountId))
        .where(and(eq(blocks.accountId, accountId), liveAccount)),
    ),
    n(
      db.select({ n: count() }).from(mutes)
        .innerJoin(accounts, eq(accounts.id, mutes.targetAccountId))
        .where(and(eq(mutes.accountId, accountId), muteActive(), liveAccount)),
    ),
    n(
      db.select({ n: count() }).from(accountDomainBlocks)
        .where(eq(accountDomainBlocks.accountId, accountId)),
    ),
    n(
      db.select({ n: count() }).from(bookmarks).innerJoin(
        statuses,
        eq(statuses.id, bookmarks.statusId),
      )
        .where(and(eq(bookmarks.accountId, accountId), isNull(statuses.deletedAt))),
    ),
  ]);
  return {
    following_accounts: following,
    followers,
    lists: listed,
    blocked_accounts: blocked,
    muted_accounts: muted,
    blocked_domains: domains,
    bookmarks: marked,
  };
}
