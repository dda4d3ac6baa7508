/**
 * Remote accounts and follows for the fan-out and day scenarios, seeded
 * with bulk SQL as the server would have stored them after fetching each
 * actor (keys, inboxes, a fresh `fetched_at`, so it does not refetch them).
 */
import { sql } from "drizzle-orm";
import type { Database } from "../db/connection.ts";

export interface RemoteAccounts {
  /** Account i has id `base + (i << 16)`; pick a base no other seeded range uses. */
  base: bigint;
  /** Each server's origin (`http://127.0.0.1:port`); account i lives on server i % length. */
  origins: string[];
  count: number;
  /** Usernames are `prefix` + i; the actor is `{origin}/users/{username}`. */
  prefix: string;
  /** The RSA key every actor lists as `#main-key`, when they sign (inbound); none otherwise. */
  publicKeyPem?: string;
}

/** Inserts remote accounts 0 … count - 1, each with a personal and a shared inbox. */
export async function insertRemoteAccounts(database: Database, r: RemoteAccounts): Promise<void> {
  const origins = sql`${JSON.stringify(r.origins)}::jsonb`;
  const origin = sql`(${origins} ->> (i % ${r.origins.length}::int))`;
  const actor = sql`${origin} || '/users/' || ${r.prefix}::text || i`;
  const pem = r.publicKeyPem ?? null;
  await database.db.execute(sql`
    INSERT INTO accounts (id, username, domain, uri, url, inbox_url, shared_inbox_url,
      followers_url, following_url, public_key_pem, public_key_id, public_keys,
      fetched_at, created_at, updated_at)
    SELECT ${r.base}::bigint + (i::bigint << 16), ${r.prefix}::text || i,
      substr(${origin}, 8), ${actor}, ${actor}, ${actor} || '/inbox', ${origin} || '/inbox',
      ${actor} || '/followers', ${actor} || '/following', ${pem}::text,
      CASE WHEN ${pem}::text IS NULL THEN NULL ELSE ${actor} || '#main-key' END,
      CASE WHEN ${pem}::text IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object(
        'id', ${actor} || '#main-key', 'type', 'rsa', 'in', 'publicKey')) END,
      now(), now(), now()
    FROM generate_series(0, ${r.count - 1}::int) AS i`);
}

/**
 * Follows from `pairs` (a SELECT of `follower`, `target` account ids), with
 * ids from `base` up; then every account's follow counters recounted.
 */
export async function insertFollows(
  database: Database,
  base: bigint,
  pairs: ReturnType<typeof sql>,
): Promise<void> {
  await database.db.execute(sql`
    INSERT INTO follows (id, account_id, target_account_id)
    SELECT ${base}::bigint + row_number() OVER (), p.follower, p.target FROM (${pairs}) p
    ON CONFLICT DO NOTHING`);
  await database.db.execute(sql`
    UPDATE accounts a SET
      following_count = (SELECT count(*) FROM follows f WHERE f.account_id = a.id),
      followers_count = (SELECT count(*) FROM follows f WHERE f.target_account_id = a.id)`);
  await database.db.execute(sql`ANALYZE accounts, follows`);
}
