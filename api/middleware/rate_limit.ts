/**
 * Rate limits of the API spec, counted in fixed windows in the database so
 * they hold across every process that shares it.
 *
 * | bucket            | key            | limit             | applies to                                   |
 * |-------------------|----------------|-------------------|----------------------------------------------|
 * | account           | account id     | 300 / 5 min       | every request with a user token              |
 * | ip                | client IP (*)  | 300 / 5 min       | every request without a user token           |
 * | media             | account id     | 30 / 30 min       | POST /api/v1/media, POST /api/v2/media        |
 * | status deletions  | account id     | 30 / 30 min       | DELETE /api/v1/statuses/:id, POST …/unreblog  |
 * | sign-ups          | client IP (*)  | 5 / 30 min        | POST /api/v1/accounts                         |
 *
 * (*) an IPv6 client counts with its whole /64 (`rateLimitSubject`).
 *
 * As in Mastodon (Rack::Attack), a request with a user token counts against
 * its account instead of its IP, so people sharing an address (a campus, a
 * carrier NAT) do not starve each other; app tokens and invalid tokens count
 * per IP. Windows are aligned on the Unix epoch, as Rack::Attack's are, so
 * every process agrees on them without coordination.
 *
 * Every applicable bucket is incremented by a single INSERT … ON CONFLICT DO
 * UPDATE … RETURNING: one round trip per request. The headers describe the
 * bucket closest to its limit; past any limit the answer is 429.
 */
import type { Context, MiddlewareHandler } from "hono";
import { sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";
import { clientIp, rateLimitSubject } from "../client_ip.ts";
import type { Database } from "../../db/connection.ts";
import { setResponseHeaders } from "./headers.ts";

const logger = getLogger(["rookery", "http", "rate-limit"]);

/** One limit: at most `limit` requests per `periodSeconds`. */
export interface RateLimit {
  readonly name: string;
  readonly limit: number;
  readonly periodSeconds: number;
}

/** The limits of the API spec's Limits table. */
export const RATE_LIMITS = {
  account: { name: "account", limit: 300, periodSeconds: 5 * 60 },
  ip: { name: "ip", limit: 300, periodSeconds: 5 * 60 },
  media: { name: "media", limit: 30, periodSeconds: 30 * 60 },
  statusDeletions: { name: "status_deletions", limit: 30, periodSeconds: 30 * 60 },
  signUps: { name: "sign_ups", limit: 5, periodSeconds: 30 * 60 },
} as const satisfies Record<string, RateLimit>;

/** A bucket a request counts against. */
export interface Bucket {
  rule: RateLimit;
  /** Who is counted (account id or IP). */
  subject: string;
}

/** The state of a bucket after counting a request. */
export interface BucketState extends Bucket {
  count: number;
  resetAt: Date;
}

/** Whether a path is rate limited at all (the API, OAuth and sign-in; not federation or pages). */
export function isRateLimitedPath(path: string): boolean {
  return path.startsWith("/api/") || path.startsWith("/oauth/") || path.startsWith("/auth/");
}

const MEDIA_PATH = /^\/api\/v[12]\/media\/?$/;
const STATUS_DELETE_PATH = /^\/api\/v1\/statuses\/[^/]+\/?$/;
const UNREBLOG_PATH = /^\/api\/v1\/statuses\/[^/]+\/unreblog\/?$/;
const SIGN_UP_PATH = /^\/api\/v1\/accounts\/?$/;

/** The buckets one request counts against. */
export function bucketsFor(
  method: string,
  path: string,
  accountId: string | null,
  ip: string,
): Bucket[] {
  const buckets: Bucket[] = [];
  if (accountId) {
    buckets.push({ rule: RATE_LIMITS.account, subject: accountId });
    if (method === "POST" && MEDIA_PATH.test(path)) {
      buckets.push({ rule: RATE_LIMITS.media, subject: accountId });
    }
    if (
      (method === "DELETE" && STATUS_DELETE_PATH.test(path)) ||
      (method === "POST" && UNREBLOG_PATH.test(path))
    ) {
      buckets.push({ rule: RATE_LIMITS.statusDeletions, subject: accountId });
    }
  } else {
    buckets.push({ rule: RATE_LIMITS.ip, subject: ip });
  }
  if (method === "POST" && SIGN_UP_PATH.test(path)) {
    buckets.push({ rule: RATE_LIMITS.signUps, subject: ip });
  }
  return buckets;
}

/** End of the epoch-aligned window that contains `now`. */
export function windowEnd(rule: RateLimit, now: Date): Date {
  const periodMs = rule.periodSeconds * 1000;
  return new Date((Math.floor(now.getTime() / periodMs) + 1) * periodMs);
}

function keyOf(bucket: Bucket): string {
  return `${bucket.rule.name}:${bucket.subject}`;
}

/** Counts one request in every bucket, in one statement, and returns their states. */
export async function countRequest(
  database: Database,
  buckets: Bucket[],
  now = new Date(),
): Promise<BucketState[]> {
  if (buckets.length === 0) return [];
  const values = sql.join(
    buckets.map((b) => sql`(${keyOf(b)}, 1, ${windowEnd(b.rule, now).toISOString()}::timestamptz)`),
    sql`, `,
  );
  // A stored window that ends before the current one is over: start again at 1.
  const rows = await database.rows<{ key: string; count: number | string; reset_at: unknown }>(
    sql`INSERT INTO rate_limit_counters (key, count, reset_at) VALUES ${values}
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN rate_limit_counters.reset_at < excluded.reset_at
          THEN 1 ELSE rate_limit_counters.count + 1 END,
        reset_at = GREATEST(rate_limit_counters.reset_at, excluded.reset_at)
      RETURNING key, count, reset_at`,
  );
  const byKey = new Map(rows.map((r) => [r.key, r]));
  return buckets.map((b) => {
    const row = byKey.get(keyOf(b))!;
    return { ...b, count: Number(row.count), resetAt: new Date(row.reset_at as string | Date) };
  });
}

/** The bucket closest to its limit (fewest requests left). */
export function tightest(states: BucketState[]): BucketState {
  return states.reduce((a, b) => (b.rule.limit - b.count < a.rule.limit - a.count ? b : a));
}

/** The X-RateLimit-* headers for a bucket. */
export function rateLimitHeaders(state: BucketState): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(state.rule.limit),
    "X-RateLimit-Remaining": String(Math.max(0, state.rule.limit - state.count)),
    "X-RateLimit-Reset": state.resetAt.toISOString(),
  };
}

/**
 * The clock windows are computed from. Tests pin it so that a run never
 * straddles a window boundary; nothing else should touch it.
 */
export const rateLimitClock = { now: (): Date => new Date() };

const PURGE_INTERVAL_MS = 10 * 60 * 1000;
const lastPurge = new WeakMap<Database, number>();

/** Deletes finished windows now and then, without holding up the request. */
function maybePurge(database: Database, now: number): void {
  const last = lastPurge.get(database);
  if (last === undefined) {
    lastPurge.set(database, now);
    return;
  }
  if (now - last < PURGE_INTERVAL_MS) return;
  lastPurge.set(database, now);
  database.rows(sql`DELETE FROM rate_limit_counters WHERE reset_at < now()`).catch((error) =>
    logger.warn("Could not purge rate limit counters: {error}", { error })
  );
}

/**
 * The middleware. Runs after authentication (it needs `c.var.user`); does
 * nothing when `config.rateLimits` is off or outside the API and OAuth paths.
 */
export function rateLimit(): MiddlewareHandler<ApiEnv> {
  return async (c: Context<ApiEnv>, next) => {
    const { config, database } = c.get("ctx");
    if (!config.rateLimits || !isRateLimitedPath(c.req.path) || c.req.method === "OPTIONS") {
      return await next();
    }
    const user = c.get("user") ?? null;
    const buckets = bucketsFor(
      c.req.method,
      c.req.path,
      user?.accountId ?? null,
      rateLimitSubject(clientIp(c)),
    );
    const now = rateLimitClock.now();
    let states: BucketState[];
    try {
      states = await countRequest(database, buckets, now);
    } catch (error) {
      // Fail open: a counter hiccup must not take the whole API down with it.
      logger.warn("Could not count request for rate limits: {error}", { error });
      return await next();
    }
    maybePurge(database, now.getTime());
    const exceeded = states.filter((s) => s.count > s.rule.limit);
    const shown = exceeded.length ? tightest(exceeded) : tightest(states);
    const headers = rateLimitHeaders(shown);
    if (exceeded.length) {
      return c.json({ error: "Too many requests" }, 429, headers);
    }
    await next();
    setResponseHeaders(c, headers);
  };
}
