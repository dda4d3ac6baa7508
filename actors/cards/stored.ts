/**
 * What is already known about a link: a stored card, and whether it is
 * fresh, or a recent failure to get one. Both the preview-card job
 * (refresh.ts) and posting (request.ts) ask here first, so a page is
 * fetched at most once per freshness period however often it is linked:
 *
 * - a card younger than {@link CARD_STALE_MS} is reused as it is;
 * - a link whose page gave no card (unreachable, not HTML, no title) is not
 *   fetched again for {@link CARD_FAILURE_TTL_MS}; a stale card it had is
 *   kept meanwhile. Mastodon asks again on every post; a dead or slow site
 *   linked by many posts would otherwise cost a fetch (and a worker slot up
 *   to the fetch deadline) each time.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { previewCardFailures } from "../../db/schema/mod.ts";
import { executePrepared } from "../../db/queries/prepared.ts";

/** A stored card older than this is fetched again (Mastodon: two weeks). */
export const CARD_STALE_MS = 14 * 24 * 60 * 60_000;

/** How long a link whose page gave no card is not fetched again. */
export const CARD_FAILURE_TTL_MS = 10 * 60_000;

const interval = (ms: number) => sql.raw(`interval '${ms / 1000} seconds'`);

/**
 * Links a status that was just written to the stored card of `url` when
 * that settles the link: the card is fresh, or the page failed recently (a
 * stale card is then kept). Returns whether it was settled; when not, the
 * caller queues the fetch. One prepared statement, run in the posting
 * transaction, so a status linking a known page has its card at once.
 */
export async function linkStoredCard(tx: Executor, statusId: string, url: string) {
  const rows = await executePrepared<{ settled: boolean }>(
    tx,
    "link_stored_card",
    () =>
      sql`WITH c AS (
      SELECT id, updated_at > now() - ${interval(CARD_STALE_MS)} AS fresh
        FROM preview_cards WHERE url = ${sql.placeholder("url")}
    ),
    failed AS (
      SELECT 1 FROM preview_card_failures WHERE url = ${sql.placeholder("url")}
        AND failed_at > now() - ${interval(CARD_FAILURE_TTL_MS)}
    ),
    linked AS (
      INSERT INTO statuses_preview_cards (status_id, preview_card_id)
      SELECT ${sql.placeholder("status")}::bigint, c.id FROM c
        WHERE c.fresh OR EXISTS (SELECT 1 FROM failed)
      ON CONFLICT DO NOTHING
    )
    SELECT EXISTS (SELECT 1 FROM c WHERE c.fresh) OR EXISTS (SELECT 1 FROM failed) AS settled`,
    {
      status: statusId,
      url,
    },
  );
  return rows[0]?.settled === true;
}

/** Whether the page of `url` gave no card within the failure period. */
export async function failedRecently(db: Executor, url: string): Promise<boolean> {
  const rows = await db.select({ url: previewCardFailures.url }).from(previewCardFailures)
    .where(sql`${previewCardFailures.url} = ${url}
      AND ${previewCardFailures.failedAt} > now() - ${interval(CARD_FAILURE_TTL_MS)}`);
  return rows.length > 0;
}

/** Records that the page of `url` gave no card just now. */
export async function recordCardFailure(db: Executor, url: string): Promise<void> {
  await db.insert(previewCardFailures).values({ url })
    .onConflictDoUpdate({ target: previewCardFailures.url, set: { failedAt: sql`now()` } });
}

/** Removes failures past their period (run by the worker's maintenance). */
export async function pruneCardFailures(db: Executor): Promise<void> {
  await db.delete(previewCardFailures)
    .where(sql`${previewCardFailures.failedAt} <= now() - ${interval(CARD_FAILURE_TTL_MS)}`);
}
