/**
 * Finding the local account behind an actor identifier. Identifiers are
 * usernames; the lookups here reject anything that cannot be one before it
 * reaches the database, so hostile paths cost nothing.
 */
import { and, isNull, sql } from "drizzle-orm";
import { USERNAME_MAX, USERNAME_PATTERN } from "../../actors/accounts/accounts.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts } from "../../db/schema/mod.ts";

/** A local account row. */
export type LocalAccount = typeof accounts.$inferSelect;

/** Whether a string could be a local username (operators' reserved names included). */
export function couldBeUsername(value: string): boolean {
  return value.length <= USERNAME_MAX && USERNAME_PATTERN.test(value);
}

/**
 * The local account with this username, matched case-insensitively (as
 * WebFinger and profile URLs are), deleted ones included; null if none.
 */
export async function findLocalAccount(
  db: Executor,
  username: string,
): Promise<LocalAccount | null> {
  if (!couldBeUsername(username)) return null;
  // Not through the users table: a deleted account has lost its user row but
  // must still answer 410 and sign its Delete with the keys it kept.
  const [row] = await db.select().from(accounts).where(
    and(isNull(accounts.domain), sql`lower(${accounts.username}) = ${username.toLowerCase()}`),
  ).limit(1);
  return row ?? null;
}

/**
 * The local account whose actor identifier is exactly `identifier`. Actor
 * URIs use the stored spelling of the username; other spellings are not ours.
 */
export async function findLocalAccountByIdentifier(
  db: Executor,
  identifier: string,
): Promise<LocalAccount | null> {
  const account = await findLocalAccount(db, identifier);
  return account?.username === identifier ? account : null;
}
