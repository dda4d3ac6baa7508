/**
 * The state of reply crawls (table `reply_crawls`, migration 0035): when a
 * status's replies collection was last crawled, and the async refresh that a
 * context answer announced (Mastodon's AsyncRefresh, kept in Redis there,
 * in the database here so that web and worker processes share it).
 *
 * Claims are single SQL statements (`INSERT … ON CONFLICT … WHERE`), so two
 * processes asked for one thread at the same moment start one crawl, and a
 * collection is never crawled twice within the cooldown.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database, Executor } from "../../db/connection.ts";
import { replyCrawls } from "../../db/schema/mod.ts";
import { toBase64Url } from "../formatting/encoding.ts";

/** What `GET /api/v1_alpha/async_refreshes/:id` reports. */
export interface AsyncRefresh {
  id: string;
  status: "running" | "finished";
  resultCount: number;
}

/**
 * A refresh still "running" this long after it started is taken as lost
 * (its job was dropped with a crashed worker); crawls end well before
 * (federation/remote/replies_crawl.ts, CRAWL_DEADLINE_MS).
 */
export const STALE_RUNNING_MS = 10 * 60_000;
/** A finished refresh is reported for an hour (Mastodon's FINISHED_REFRESH_EXPIRATION). */
const FINISHED_KEPT_MS = 60 * 60_000;

type Row = typeof replyCrawls.$inferSelect;

function asRefresh(row: Row, now = Date.now()): AsyncRefresh | null {
  if (!row.refreshId) return null;
  const lost = row.state === "running" && now - row.crawledAt.getTime() > STALE_RUNNING_MS;
  if (row.state === "finished" || lost) {
    const end = row.finishedAt?.getTime() ?? row.crawledAt.getTime() + STALE_RUNNING_MS;
    if (now - end > FINISHED_KEPT_MS) return null;
    return { id: row.refreshId, status: "finished", resultCount: row.resultCount };
  }
  return { id: row.refreshId, status: "running", resultCount: row.resultCount };
}

/** The refresh of `statusId`'s replies that is running now, if any. */
export async function runningRefresh(db: Executor, statusId: string): Promise<AsyncRefresh | null> {
  const [row] = await db.select().from(replyCrawls).where(eq(replyCrawls.statusId, statusId));
  const refresh = row ? asRefresh(row) : null;
  return refresh?.status === "running" ? refresh : null;
}

/** A refresh by its id, as long as it is reported (null: unknown, or expired). */
export async function findRefresh(db: Executor, id: string): Promise<AsyncRefresh | null> {
  if (id.length === 0 || id.length > 64) return null;
  const [row] = await db.select().from(replyCrawls).where(eq(replyCrawls.refreshId, id));
  return row ? asRefresh(row) : null;
}

/** `now() - ms` in SQL. */
function ago(ms: number) {
  return sql`now() - (${ms}::double precision * interval '1 millisecond')`;
}

/**
 * Starts a refresh of `statusId`'s replies unless its collection was crawled
 * within `cooldownMs`: returns the new refresh (running, nothing counted),
 * or null when another crawl was (or is being) made.
 */
export async function claimRefresh(
  database: Database,
  statusId: string,
  cooldownMs: number,
): Promise<AsyncRefresh | null> {
  const id = toBase64Url(crypto.getRandomValues(new Uint8Array(24)));
  const rows = await database.rows<{ refresh_id: string }>(sql`
    INSERT INTO reply_crawls (status_id, crawled_at, refresh_id, state, result_count, finished_at)
    VALUES (${statusId}::bigint, now(), ${id}, 'running', 0, NULL)
    ON CONFLICT (status_id) DO UPDATE SET crawled_at = now(), refresh_id = excluded.refresh_id,
      state = 'running', result_count = 0, finished_at = NULL
    WHERE reply_crawls.crawled_at <= ${ago(cooldownMs)}
    RETURNING refresh_id`);
  return rows.length ? { id, status: "running", resultCount: 0 } : null;
}

/**
 * Marks `statusId`'s collection as crawled now, for a crawl that reaches it
 * through another status's thread; false when it was crawled within
 * `cooldownMs` (then it is skipped). Its own refresh, if any, is kept.
 */
export async function claimCrawl(
  database: Database,
  statusId: string,
  cooldownMs: number,
): Promise<boolean> {
  const rows = await database.rows(sql`
    INSERT INTO reply_crawls (status_id, crawled_at) VALUES (${statusId}::bigint, now())
    ON CONFLICT (status_id) DO UPDATE SET crawled_at = now()
    WHERE reply_crawls.crawled_at <= ${ago(cooldownMs)}
    RETURNING status_id`);
  return rows.length > 0;
}

/** Records how many new statuses the refresh `id` stored so far. */
export async function countRefresh(db: Executor, id: string, resultCount: number): Promise<void> {
  await db.update(replyCrawls).set({ resultCount })
    .where(and(eq(replyCrawls.refreshId, id), eq(replyCrawls.state, "running")));
}

/** Ends the refresh `id` with its count. */
export async function finishRefresh(db: Executor, id: string, resultCount: number): Promise<void> {
  await db.update(replyCrawls).set({ state: "finished", resultCount, finishedAt: new Date() })
    .where(eq(replyCrawls.refreshId, id));
}
