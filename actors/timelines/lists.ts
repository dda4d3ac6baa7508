/**
 * Lists: an account's named groups of followed accounts, each with its own
 * timeline (list_feed, filled on write). Mastodon's rules:
 * - a title is required; `replies_policy` is followed, list or none (default
 *   list); `exclusive` keeps members' posts out of the home timeline;
 * - at most {@link MAX_LISTS} lists per account;
 * - members must be accounts the owner follows or has asked to follow (or the
 *   owner); anything else is "not found", and adding a member twice is a
 *   validation error ("Account has already been taken").
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { accounts, followRequests, follows, listAccounts, lists } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { backfillListFeeds, theList, unmergeFromListFeeds } from "./regenerate.ts";

export type ListRow = typeof lists.$inferSelect;

/** Mastodon's per-account cap on lists. */
export const MAX_LISTS = 50;

/** A generous bound on titles (Mastodon has none; PostgreSQL text has none either). */
export const MAX_TITLE_LENGTH = 256;

export const REPLIES_POLICIES = ["followed", "list", "none"] as const;
export type RepliesPolicy = typeof REPLIES_POLICIES[number];

/** What a create or an update may change. */
export interface ListInput {
  title?: string;
  repliesPolicy?: string;
  exclusive?: boolean;
}

function validate(input: ListInput, creating: boolean): void {
  const problems = new Problems();
  if (input.title !== undefined || creating) {
    const title = (input.title ?? "").trim();
    if (title === "") problems.add("title", "ERR_BLANK", "can't be blank");
    else if ([...title].length > MAX_TITLE_LENGTH) {
      problems.add(
        "title",
        "ERR_TOO_LONG",
        `is too long (maximum is ${MAX_TITLE_LENGTH} characters)`,
      );
    }
  }
  if (
    input.repliesPolicy !== undefined &&
    !(REPLIES_POLICIES as readonly string[]).includes(input.repliesPolicy)
  ) {
    problems.add("replies_policy", "ERR_INCLUSION", "is not included in the list");
  }
  problems.throwIfAny();
}

/** One of the account's lists, or NotFoundError (someone else's list is not found either). */
export async function findOwnList(
  db: Executor,
  accountId: string,
  listId: string,
  options: { lock?: boolean } = {},
): Promise<ListRow> {
  const query = db.select().from(lists).where(ownList(accountId, listId));
  const [row] = options.lock ? await query.for("update") : await query;
  if (!row) throw new NotFoundError();
  return row;
}

/** List `listId` of `accountId` (anyone else's is no list of theirs). */
function ownList(accountId: string, listId: string) {
  return and(eq(lists.id, listId), eq(lists.accountId, accountId));
}

/** The account's lists, oldest first (as Mastodon lists them). */
export async function listsOf(db: Db, accountId: string): Promise<ListRow[]> {
  return await db.select().from(lists).where(eq(lists.accountId, accountId)).orderBy(asc(lists.id));
}

/** The account's lists that contain `memberId`, oldest first (GET /api/v1/accounts/:id/lists). */
export async function listsContaining(
  db: Db,
  accountId: string,
  memberId: string,
): Promise<ListRow[]> {
  return await db.select({ list: lists }).from(lists)
    .innerJoin(listAccounts, eq(listAccounts.listId, lists.id))
    .where(and(eq(lists.accountId, accountId), eq(listAccounts.accountId, memberId)))
    .orderBy(asc(lists.id))
    .then((rows) => rows.map((r) => r.list));
}

/** Creates a list. */
export async function createList(db: Db, accountId: string, input: ListInput): Promise<ListRow> {
  validate(input, true);
  return await db.transaction(async (tx) => {
    // Serializes concurrent creations by one account, so the cap holds.
    await tx.execute(sql`SELECT 1 FROM accounts WHERE id = ${accountId}::bigint FOR UPDATE`);
    const [{ n }] = await tx.select({ n: count() }).from(lists).where(
      eq(lists.accountId, accountId),
    );
    if (n >= MAX_LISTS) {
      const problems = new Problems();
      problems.add("base", "ERR_LIMIT", "You have reached the maximum number of lists");
      problems.throwIfAny();
    }
    const [row] = await tx.insert(lists).values({
      id: newId(),
      accountId,
      title: input.title!.trim(),
      repliesPolicy: input.repliesPolicy ?? "list",
      exclusive: input.exclusive ?? false,
    }).returning();
    return row;
  });
}

/** Changes a list's title, replies policy or exclusivity. */
export async function updateList(
  db: Db,
  accountId: string,
  listId: string,
  input: ListInput,
): Promise<ListRow> {
  validate(input, false);
  const changes: Partial<typeof lists.$inferInsert> = {};
  if (input.title !== undefined) changes.title = input.title.trim();
  if (input.repliesPolicy !== undefined) changes.repliesPolicy = input.repliesPolicy;
  if (input.exclusive !== undefined) changes.exclusive = input.exclusive;
  if (Object.keys(changes).length === 0) return await findOwnList(db, accountId, listId);
  const [row] = await db.update(lists).set(changes)
    .where(ownList(accountId, listId)).returning();
  if (!row) throw new NotFoundError();
  return row;
}

/** Deletes a list (its members and feed go with it). */
export async function deleteList(db: Db, accountId: string, listId: string): Promise<void> {
  const gone = await db.delete(lists)
    .where(ownList(accountId, listId)).returning({ id: lists.id });
  if (gone.length === 0) throw new NotFoundError();
}

/**
 * Adds accounts to a list and back-fills its feed with their recent posts.
 * All or nothing: an unknown or unfollowed account → NotFoundError, one
 * already in the list → ValidationError.
 */
export async function addListAccounts(
  db: Db,
  accountId: string,
  listId: string,
  accountIds: readonly string[],
): Promise<void> {
  const ids = [...new Set(accountIds)];
  await db.transaction(async (tx) => {
    await findOwnList(tx, accountId, listId, { lock: true });
    if (ids.length === 0) return;
    const allowed = await tx.select({ id: accounts.id }).from(accounts)
      .where(and(
        inArray(accounts.id, ids),
        sql`${accounts.deletedAt} IS NULL`,
        sql`(${accounts.id} = ${accountId}::bigint
          OR EXISTS (SELECT 1 FROM ${follows} f
            WHERE f.account_id = ${accountId}::bigint AND f.target_account_id = ${accounts.id})
          OR EXISTS (SELECT 1 FROM ${followRequests} r
            WHERE r.account_id = ${accountId}::bigint AND r.target_account_id = ${accounts.id}))`,
      ));
    if (allowed.length !== ids.length) throw new NotFoundError();
    const inserted = await tx.insert(listAccounts)
      .values(ids.map((id) => ({ id: newId(), listId, accountId: id })))
      .onConflictDoNothing().returning({ id: listAccounts.id });
    if (inserted.length !== ids.length) {
      const problems = new Problems();
      problems.add("account", "ERR_TAKEN", "has already been taken");
      problems.throwIfAny();
    }
    await backfillListFeeds(tx, theList(listId), ids);
  });
}

/** Removes accounts from a list and their posts from its feed. Unknown ids are ignored. */
export async function removeListAccounts(
  db: Db,
  accountId: string,
  listId: string,
  accountIds: readonly string[],
): Promise<void> {
  const ids = [...new Set(accountIds)];
  await db.transaction(async (tx) => {
    await findOwnList(tx, accountId, listId);
    if (ids.length === 0) return;
    await tx.delete(listAccounts)
      .where(and(eq(listAccounts.listId, listId), inArray(listAccounts.accountId, ids)));
    await unmergeFromListFeeds(tx, theList(listId), ids);
  });
}
