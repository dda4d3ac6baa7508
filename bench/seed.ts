/**
 * Seeds the benchmark data set with bulk SQL: the same rows the product
 * writes (accounts with users, statuses with their counters, follows with
 * counters, home feeds as fan-out fills them), made in a few statements.
 *
 * - 1,000 local accounts, `bench0` … `bench999`, sharing one password hash;
 * - 1,000,000 public statuses, a thousand per account, one per second of
 *   the last ~11.5 days, newest last;
 * - the viewer (`bench0`) follows `bench1` … `bench500`, and its home feed
 *   holds the newest 800 statuses of those accounts and its own;
 * - the poster (`bench501`) has 100 local followers (`bench502` … `bench601`).
 */
import { createWebSession } from "../actors/auth/sessions.ts";
import { ActivityMemo } from "../actors/accounts/user_activity.ts";
import { sql } from "drizzle-orm";
import type { Database } from "../db/connection.ts";
import { hashPassword } from "../actors/auth/passwords.ts";
import { createAccessToken, createApplication } from "../actors/oauth/tokens.ts";
import { ALL_SCOPES } from "../model/scopes.ts";
import { HOME_FEED_LIMIT } from "../actors/timelines/fanout.ts";
import { searchableContent } from "./search.ts";

export interface SeedOptions {
  origin: string;
  accounts: number;
  statuses: number;
  /** How many accounts the viewer follows. */
  followed: number;
  /** How many local followers the poster has. */
  posterFollowers: number;
  /**
   * Statuses with words to search (bench/search.ts) and one in ten
   * followers-only, instead of the one repeated sentence.
   */
  searchable?: boolean;
  /** Tokens for this many of the poster's followers (full home feeds), bench/inbound.ts's. */
  followerTokens?: number;
}

export const DEFAULT_SEED: Omit<SeedOptions, "origin"> = {
  accounts: 1_000,
  statuses: 1_000_000,
  followed: 500,
  posterFollowers: 100,
};

export interface Seeded {
  viewerToken: string;
  posterToken: string;
  /** The viewer's browser session (its cookie value), for the web home row (bench/web.ts). */
  viewerCookie: string;
  /** Tokens of the poster's first followers ({@link SeedOptions.followerTokens}). */
  followerTokens: string[];
}

export async function seed(database: Database, options: SeedOptions): Promise<Seeded> {
  const { origin } = options;
  const n = options.accounts;
  const db = database.db;
  const passwordHash = await hashPassword("benchmark password");
  const now = Date.now();
  // Account ids sit before every status id; status i is posted at second i.
  const accountBase = BigInt(now - 40 * 86_400_000) << 16n;
  const statusStartMs = now - options.statuses * 1000;

  await insertLocalAccounts(database, {
    origin,
    base: accountBase,
    prefix: "bench",
    count: n,
    statusesCount: Math.floor(options.statuses / n),
    passwordHash,
  });

  const content = options.searchable
    ? searchableContent(sql`g`)
    : sql`'<p>Benchmark status number ' || g || ', with a little text to carry.</p>'`;
  const text = options.searchable
    ? sql`NULL`
    : sql`'Benchmark status number ' || g || ', with a little text to carry.'`;
  const visibility = options.searchable
    ? sql`CASE WHEN g % 10 = 5 THEN 'private' ELSE 'public' END`
    : sql`'public'`;
  // Statuses in chunks, so PGlite's memory stays bounded.
  const chunk = 100_000;
  for (let start = 0; start < options.statuses; start += chunk) {
    const end = Math.min(options.statuses, start + chunk) - 1;
    await db.execute(sql`
      INSERT INTO statuses (id, uri, url, account_id, local, visibility, content, text,
        created_at)
      SELECT ((${statusStartMs}::bigint + g * 1000) << 16),
        ${origin} || '/users/bench' || (g % ${n}) || '/statuses/' ||
          ((${statusStartMs}::bigint + g * 1000) << 16),
        ${origin} || '/@bench' || (g % ${n}) || '/' || ((${statusStartMs}::bigint + g * 1000) << 16),
        ${accountBase}::bigint + ((g % ${n}) << 16), true, ${visibility},
        ${content}, ${text},
        to_timestamp((${statusStartMs}::bigint + g * 1000) / 1000.0)
      FROM generate_series(${start}::bigint, ${end}::bigint) AS g`);
  }

  const follow = async (followerIdx: string, targetIdx: string, from: number, to: number) => {
    await db.execute(sql`
      INSERT INTO follows (id, account_id, target_account_id)
      SELECT ${accountBase}::bigint + (i << 16) + 2 + ${from}::bigint,
        ${accountBase}::bigint + (${sql.raw(followerIdx)} << 16),
        ${accountBase}::bigint + (${sql.raw(targetIdx)} << 16)
      FROM generate_series(${from}::int, ${to}::int) AS i`);
  };
  // The viewer (0) follows 1..followed; the poster's followers follow it.
  await follow("0", "i", 1, options.followed);
  const poster = options.followed + 1;
  await follow("i", String(poster), poster + 1, poster + options.posterFollowers);
  await db.execute(sql`
    UPDATE accounts a SET
      following_count = (SELECT count(*) FROM follows f WHERE f.account_id = a.id),
      followers_count = (SELECT count(*) FROM follows f WHERE f.target_account_id = a.id)`);

  // Home feeds as fan-out leaves them: the newest entries of followed accounts and one's own.
  await db.execute(sql`
    INSERT INTO home_feed (account_id, status_id)
    SELECT f.account_id, s.id FROM (
      SELECT DISTINCT account_id FROM follows) f
    CROSS JOIN LATERAL (
      SELECT s.id FROM statuses s
      WHERE s.account_id = f.account_id
        OR s.account_id IN (SELECT target_account_id FROM follows x
          WHERE x.account_id = f.account_id)
      ORDER BY s.id DESC LIMIT ${HOME_FEED_LIMIT}) s`);
  // A settled database, as a running server's would be: without this,
  // autovacuum takes up the million fresh rows (and the checkpointer writes
  // them out) during the first scenario, and its latencies measure that.
  await db.execute(sql`VACUUM (ANALYZE)`);
  await db.execute(sql`CHECKPOINT`);

  const { application } = await createApplication(db, {
    name: "Rookery benchmark",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: [...ALL_SCOPES],
  });
  const token = async (index: number) =>
    (await createAccessToken(db, {
      applicationId: application.id,
      userId: String((accountBase + (BigInt(index) << 16n)) + 1n),
      scopes: ["read", "write", "follow"],
    })).token;
  const session = await createWebSession(db, new ActivityMemo(), String(accountBase + 1n));
  const followerTokens: string[] = [];
  for (let i = 1; i <= Math.min(options.followerTokens ?? 0, options.posterFollowers); i++) {
    followerTokens.push(await token(poster + i));
  }
  return {
    viewerToken: await token(0),
    posterToken: await token(poster),
    viewerCookie: session.secret,
    followerTokens,
  };
}

/** A range of local accounts for {@link insertLocalAccounts}. */
export interface LocalAccounts {
  origin: string;
  /** Account i has id `base + (i << 16)` (a snowflake i ms after `base`); its user that + 1. */
  base: bigint;
  /** Usernames are `prefix` + i. */
  prefix: string;
  count: number;
  statusesCount: number;
  passwordHash: string;
}

/** Inserts local accounts 0 … count - 1, each with a confirmed, approved user. */
export async function insertLocalAccounts(database: Database, a: LocalAccounts): Promise<void> {
  const { origin, base } = a;
  const prefix = sql`${a.prefix}::text`;
  const db = database.db;
  await db.execute(sql`
    INSERT INTO accounts (id, username, uri, url, inbox_url, shared_inbox_url, outbox_url,
      followers_url, following_url, featured_url, featured_tags_url, display_name, note,
      statuses_count, last_status_at, created_at, updated_at)
    SELECT ${base}::bigint + (i << 16), ${prefix} || i,
      ${origin} || '/users/' || ${prefix} || i, ${origin} || '/@' || ${prefix} || i,
      ${origin} || '/users/' || ${prefix} || i || '/inbox', ${origin} || '/inbox',
      ${origin} || '/users/' || ${prefix} || i || '/outbox',
      ${origin} || '/users/' || ${prefix} || i || '/followers',
      ${origin} || '/users/' || ${prefix} || i || '/following',
      ${origin} || '/users/' || ${prefix} || i || '/collections/featured',
      ${origin} || '/users/' || ${prefix} || i || '/collections/tags',
      'Bench ' || i, '<p>Benchmark account ' || i || '</p>',
      ${a.statusesCount}, now(), now(), now()
    FROM generate_series(0, ${a.count - 1}::int) AS i`);
  await db.execute(sql`
    INSERT INTO users (id, account_id, email, password_hash, role, confirmed_at, approved)
    SELECT ${base}::bigint + (i << 16) + 1, ${base}::bigint + (i << 16),
      ${prefix} || i || '@bench.example', ${a.passwordHash}, 'user', now(), true
    FROM generate_series(0, ${a.count - 1}::int) AS i`);
}
