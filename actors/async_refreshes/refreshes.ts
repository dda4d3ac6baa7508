/**
 * Background refreshes announced by a `Mastodon-Async-Refresh` header and
 * polled at `/api/v1_alpha/async_refreshes/:id` (Mastodon 4.4's
 * AsyncRefresh), for work other than thread crawls (those keep theirs on
 * `reply_crawls`, actors/statuses/reply_crawls.ts): today, a year's annual
 * report that a user asked to generate. At most one refresh of a kind and
 * subject runs at once (a unique index); a finished one is reported for an
 * hour, and one still running ten minutes after it started is taken as lost.
 */
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { asyncRefreshes } from "../../db/schema/mod.ts";
import { toBase64Url } from "../formatting/encoding.ts";
import type { AsyncRefresh } from "../statuses/reply_crawls.ts";

/** A refresh still running this long after it started was lost (its job with a crashed worker). */
const STALE_RUNNING_MS = 10 * 60_000;
/** A finished refresh is reported for an hour (Mastodon's FINISHED_REFRESH_EXPIRATION). */
const FINISHED_KEPT_MS = 60 * 60_000;

type Row = typeof asyncRefreshes.$inferSelect;

function asRefresh(row: Row, now = Date.now()): AsyncRefresh | null {
  const lost = row.state === "running" && now - row.createdAt.getTime() > STALE_RUNNING_MS;
  if (row.state === "finished" || lost) {
    const end = row.finishedAt?.getTime() ?? row.createdAt.getTime() + STALE_RUNNING_MS;
    if (now - end > FINISHED_KEPT_MS) return null;
    return { id: row.id, status: "finished", resultCount: row.resultCount };
  }
  return { id: row.id, status: "running", resultCount: row.resultCount };
}

/** The refresh of `kind` and `subject` running now, if any. */
export async function runningAsyncRefresh(
  db: Executor,
  kind: string,
  subject: string,
): Promise<AsyncRefresh | null> {
  const [row] = await db.select().from(asyncRefreshes).where(and(
    eq(asyncRefreshes.kind, kind),
    eq(asyncRefreshes.subject, subject),
    eq(asyncRefreshes.state, "running"),
  ));
  const refresh = row ? asRefresh(row) : null;
  return refresh?.status === "running" ? refresh : null;
}

/**
 * Starts a refresh of `kind` and `subject` in `tx`; returns it, or the one
 * already running (then `started` is false). A lost one is closed first.
 */
export async function startAsyncRefresh(
  tx: Executor,
  kind: string,
  subject: string,
): Promise<{ refresh: AsyncRefresh; started: boolean }> {
  const running = await runningAsyncRefresh(tx, kind, subject);
  if (running) return { refresh: running, started: false };
  await tx.update(asyncRefreshes).set({ state: "finished", finishedAt: new Date() }).where(and(
    eq(asyncRefreshes.kind, kind),
    eq(asyncRefreshes.subject, subject),
    eq(asyncRefreshes.state, "running"),
  ));
  const id = toBase64Url(crypto.getRandomValues(new Uint8Array(24)));
  await tx.insert(asyncRefreshes).values({ id, kind, subject });
  return { refresh: { id, status: "running", resultCount: 0 }, started: true };
}

/** Marks a refresh finished with `resultCount` results (nothing when it is unknown). */
export async function finishAsyncRefresh(
  db: Executor,
  id: string,
  resultCount: number,
): Promise<void> {
  await db.update(asyncRefreshes).set({
    state: "finished",
    resultCount,
    finishedAt: new Date(),
  }).where(eq(asyncRefreshes.id, id));
}

/** A refresh by its id, as long as it is reported (null: unknown, or expired). */
export async function findAsyncRefresh(db: Executor, id: string): Promise<AsyncRefresh | null> {
  if (id.length === 0 || id.length > 64) return null;
  const [row] = await db.select().from(asyncRefreshes).where(eq(asyncRefreshes.id, id));
  return row ? asRefresh(row) : null;
}
