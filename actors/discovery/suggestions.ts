/**
 * Follow suggestion commands: a user dismissing a suggestion, and staff
 * featuring accounts in everyone's suggestions (the admin command line,
 * until the admin API exists). The suggestions themselves are one read
 * query (db/queries/suggestions.ts).
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, suggestionFeatures } from "../../db/schema/mod.ts";
import { isId } from "../../db/ids.ts";
import { NotFoundError } from "../../model/errors.ts";
import { printableName } from "../moderation/local_users.ts";

/**
 * Never suggests `targetId` to `accountId` again. An unknown or malformed id
 * is ignored, as Mastodon answers 200 whatever the id.
 */
export async function dismissSuggestion(
  db: Executor,
  accountId: string,
  targetId: string,
): Promise<void> {
  if (!isId(targetId) || targetId === accountId) return;
  await db.execute(sql`INSERT INTO suggestion_dismissals (account_id, target_account_id)
    SELECT ${accountId}::bigint, a.id FROM accounts a WHERE a.id = ${targetId}::bigint
    ON CONFLICT DO NOTHING`);
}

/** An account named on the command line: `name` (local) or `name@domain` (known remote). */
async function findByHandle(db: Executor, handle: string) {
  const cleaned = handle.trim().replace(/^@/, "");
  const at = cleaned.indexOf("@");
  const username = at === -1 ? cleaned : cleaned.slice(0, at);
  const domain = at === -1 ? "" : cleaned.slice(at + 1);
  const [row] = username && username.length <= 200 && domain.length <= 255
    ? await db.select({ id: accounts.id, username: accounts.username, domain: accounts.domain })
      .from(accounts).where(and(
        sql`lower(${accounts.username}) = ${username.toLowerCase()}`,
        sql`lower(coalesce(${accounts.domain}, '')) = ${domain.toLowerCase()}`,
        isNull(accounts.deletedAt),
      )).limit(1)
    : [];
  if (!row) throw new NotFoundError(`No account @${printableName(cleaned)}`);
  return row;
}

function handleOf(row: { username: string; domain: string | null }): string {
  return row.domain ? `@${row.username}@${row.domain}` : `@${row.username}`;
}

/** Features an account in everyone's suggestions; returns its handle and whether it changed. */
export async function featureInSuggestions(
  db: Executor,
  handle: string,
): Promise<{ handle: string; changed: boolean }> {
  const row = await findByHandle(db, handle);
  const inserted = await db.insert(suggestionFeatures).values({ accountId: row.id })
    .onConflictDoNothing().returning({ id: suggestionFeatures.accountId });
  return { handle: handleOf(row), changed: inserted.length > 0 };
}

/** Stops featuring an account in suggestions. */
export async function unfeatureInSuggestions(
  db: Executor,
  handle: string,
): Promise<{ handle: string; changed: boolean }> {
  const row = await findByHandle(db, handle);
  const deleted = await db.delete(suggestionFeatures)
    .where(eq(suggestionFeatures.accountId, row.id))
    .returning({ id: suggestionFeatures.accountId });
  return { handle: handleOf(row), changed: deleted.length > 0 };
}

/** The accounts staff feature, in the order they were featured. */
export async function listFeaturedInSuggestions(
  db: Executor,
): Promise<{ handle: string; discoverable: boolean; createdAt: Date }[]> {
  const rows = await db.select({
    username: accounts.username,
    domain: accounts.domain,
    discoverable: accounts.discoverable,
    createdAt: suggestionFeatures.createdAt,
  }).from(suggestionFeatures).innerJoin(accounts, eq(accounts.id, suggestionFeatures.accountId))
    .orderBy(suggestionFeatures.createdAt);
  return rows.map((r) => ({
    handle: handleOf(r),
    discoverable: r.discoverable,
    createdAt: r.createdAt,
  }));
}
