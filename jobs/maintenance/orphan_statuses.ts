/**
 * Removing remote statuses nobody here cares about (Mastodon's `tootctl
 * statuses remove`): old remote statuses that no local account could miss.
 *
 * A remote status created before the cutoff is kept when any of these holds:
 * a local account follows (or asked to follow) its author; a local account
 * favourited, bookmarked, replied to, boosted, quoted it or voted in its
 * poll; it mentions or replies to a local account, or its thread holds a
 * local status; it is pinned; it is boosted by anyone (the boost needs it; a
 * boost that goes itself frees it for the next run); it boosts or quotes a
 * local status; a notification points at it; a report or a warning cites it.
 *
 * The rest is deleted for good, a batch per transaction (batches.ts), with
 * what hangs off it: search rows, mentions, tags, edits, polls, list feed
 * rows and cards go by foreign-key cascade; home feed rows (no foreign keys,
 * see the home_feed schema) of accounts following one of its tags are
 * deleted here, and any other stale entry shows nothing because readers join
 * `statuses`; its media rows are deleted and their stored files removed.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { parseKey } from "../../actors/media/store/keys.ts";
import type { MediaStore } from "../../actors/media/store/mod.ts";
import { BATCH_SIZE, type JobOptions, rowsOf } from "./batches.ts";

/** What a run removed (or, dry, would remove). */
export interface StatusRemoval {
  statuses: number;
  /** Media attachment rows deleted with them. */
  attachments: number;
  /** Stored media files removed (that existed), and their bytes. */
  files: number;
  bytes: number;
}

const LOCAL = sql`(SELECT x.id FROM accounts x WHERE x.domain IS NULL)`;

/** The orphan condition on `s` (statuses). */
function orphan(cutoff: Date) {
  return sql`s.local = false AND s.created_at < ${cutoff.toISOString()}::timestamptz
    AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.target_account_id = s.account_id
      AND f.account_id IN ${LOCAL})
    AND NOT EXISTS (SELECT 1 FROM follow_requests fr WHERE fr.target_account_id = s.account_id
      AND fr.account_id IN ${LOCAL})
    AND NOT EXISTS (SELECT 1 FROM favourites fv WHERE fv.status_id = s.id
      AND fv.account_id IN ${LOCAL})
    AND NOT EXISTS (SELECT 1 FROM bookmarks b WHERE b.status_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM status_pins p WHERE p.status_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM statuses r WHERE r.reblog_of_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM statuses c WHERE c.in_reply_to_id = s.id AND c.local)
    AND NOT EXISTS (SELECT 1 FROM statuses q WHERE q.quoted_status_id = s.id AND q.local)
    AND NOT EXISTS (SELECT 1 FROM statuses o WHERE o.local
      AND (o.id = s.reblog_of_id OR o.id = s.quoted_status_id))
    AND NOT EXISTS (SELECT 1 FROM mentions mn WHERE mn.status_id = s.id
      AND mn.account_id IN ${LOCAL})
    AND (s.in_reply_to_account_id IS NULL OR s.in_reply_to_account_id NOT IN ${LOCAL})
    AND (s.conversation_id IS NULL OR NOT EXISTS (SELECT 1 FROM statuses t
      WHERE t.conversation_id = s.conversation_id AND t.local))
    AND NOT EXISTS (SELECT 1 FROM polls pl JOIN poll_votes pv ON pv.poll_id = pl.id
      WHERE pl.status_id = s.id AND pv.account_id IN ${LOCAL})
    AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.status_id = s.id)
    AND NOT EXISTS (SELECT 1 FROM reports rp
      WHERE rp.status_ids @> jsonb_build_array(s.id::text))
    AND NOT EXISTS (SELECT 1 FROM account_warnings w
      WHERE w.status_ids @> jsonb_build_array(s.id::text))`;
}

/** Deletes orphan remote statuses created before `cutoff` (see the module comment). */
export async function removeOrphanStatuses(
  db: Db,
  store: MediaStore,
  cutoff: Date,
  options: JobOptions = {},
): Promise<StatusRemoval> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  // The total is what the walk examines (old remote statuses), a cheap count
  // on the (local, created_at) index; the orphan test runs per batch.
  const [{ n }] = rowsOf<{ n: number | string }>(
    await db.execute(sql`SELECT count(*) AS n FROM statuses s
      WHERE s.local = false AND s.created_at < ${cutoff.toISOString()}::timestamptz`),
  );
  const total = Number(n);
  const out: StatusRemoval = { statuses: 0, attachments: 0, files: 0, bytes: 0 };
  let examined = 0;
  let cursor = "0";
  options.onProgress?.(0, total);
  while (true) {
    const ids = rowsOf<{ id: string }>(
      await db.execute(sql`SELECT s.id::text AS id FROM statuses s
        WHERE s.id > ${cursor}::bigint AND s.local = false
          AND s.created_at < ${cutoff.toISOString()}::timestamptz
        ORDER BY s.id LIMIT ${batchSize}`),
    ).map((r) => String(r.id));
    if (ids.length === 0) break;
    cursor = ids.at(-1)!;
    const batch = sql.param(ids);
    let paths: string[] = [];
    if (options.dryRun) {
      const rows = rowsOf<{ id: string }>(
        await db.execute(sql`SELECT s.id::text AS id FROM statuses s
          WHERE s.id = ANY(${batch}::bigint[]) AND ${orphan(cutoff)}`),
      );
      out.statuses += rows.length;
      if (rows.length) {
        const media = rowsOf<{ file_path: string | null; preview_path: string | null }>(
          await db.execute(sql`SELECT file_path, preview_path FROM media_attachments
            WHERE status_id = ANY(${sql.param(rows.map((r) => String(r.id)))}::bigint[])`),
        );
        out.attachments += media.length;
        paths = media.flatMap((m) => [m.file_path, m.preview_path]).filter(isStored);
      }
    } else {
      paths = await db.transaction(async (tx) => {
        // Checked again under the lock; a status a request holds is skipped.
        const doomed = rowsOf<{ id: string }>(
          await tx.execute(sql`SELECT s.id::text AS id FROM statuses s
            WHERE s.id = ANY(${batch}::bigint[]) AND ${orphan(cutoff)}
            FOR UPDATE OF s SKIP LOCKED`),
        ).map((r) => String(r.id));
        if (doomed.length === 0) return [];
        const gone = sql.param(doomed);
        // Media first: the foreign key would only detach them.
        const media = rowsOf<{ file_path: string | null; preview_path: string | null }>(
          await tx.execute(sql`DELETE FROM media_attachments
            WHERE status_id = ANY(${gone}::bigint[]) RETURNING file_path, preview_path`),
        );
        // Home feeds by their primary key: the owners are tag followers.
        await tx.execute(sql`DELETE FROM home_feed h USING (
            SELECT DISTINCT tf.account_id, st.status_id FROM statuses_tags st
            JOIN tag_follows tf ON tf.tag_id = st.tag_id
            WHERE st.status_id = ANY(${gone}::bigint[])
          ) o WHERE h.account_id = o.account_id AND h.status_id = o.status_id`);
        await tx.execute(sql`DELETE FROM statuses WHERE id = ANY(${gone}::bigint[])`);
        out.statuses += doomed.length;
        out.attachments += media.length;
        return media.flatMap((m) => [m.file_path, m.preview_path]).filter(isStored);
      });
    }
    for (const path of paths) {
      const size = await store.size(path);
      if (size === null) continue;
      if (!options.dryRun) await store.delete([path]);
      out.files++;
      out.bytes += size;
    }
    examined += ids.length;
    options.onProgress?.(examined, total);
  }
  return out;
}

function isStored(path: string | null): path is string {
  return path != null && parseKey(path)?.kind === "attachment";
}
