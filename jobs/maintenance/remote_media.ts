/**
 * Removing the cached copies of remote media (Mastodon's `tootctl media
 * remove`, and the worker's MEDIA_CACHE_RETENTION_PERIOD): the stored files
 * of attachments that belong to remote accounts and were cached (or, for
 * copies older than the cache's bookkeeping, created) more than N days ago
 * go; the rows stay, with their `remote_url`, so statuses keep their
 * attachments and the API then shows the media proxy's URL, which fetches
 * the file again when it is next looked at (api/routes/media_proxy.ts).
 *
 * Only rows of remote accounts that have a remote URL are touched: a local
 * user's upload (no domain, no remote URL) is never a candidate, whatever
 * its age. Paths that are URLs rather than stored files are left alone.
 *
 * Avatars, headers and card images have their own (jobs/maintenance/
 * profile_media.ts, card_images.ts).
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { parseKey } from "../../actors/media/store/keys.ts";
import type { MediaStore } from "../../actors/media/store/mod.ts";
import { BATCH_SIZE, type JobOptions, rowsOf } from "./batches.ts";

/** What a run removed (or, dry, would remove). */
export interface MediaRemoval {
  /** Attachments whose cached files went. */
  attachments: number;
  /** Files removed (that existed). */
  files: number;
  /** Bytes those files held. */
  bytes: number;
  /** Relative paths of the files, for the listing. */
  paths: string[];
}

/** The candidate condition, on `m` (media_attachments) joined to `a` (accounts). */
function cached(cutoff: Date) {
  return sql`a.domain IS NOT NULL AND m.remote_url IS NOT NULL
    AND coalesce(m.cached_at, m.created_at) < ${cutoff.toISOString()}::timestamptz
    AND ((m.file_path IS NOT NULL AND m.file_path !~* '^https?://')
      OR (m.preview_path IS NOT NULL AND m.preview_path !~* '^https?://'))`;
}

function storedPaths(row: { file_path: string | null; preview_path: string | null }): string[] {
  return [row.file_path, row.preview_path].filter((p): p is string =>
    p != null && parseKey(p)?.kind === "attachment"
  );
}

/**
 * Removes the cached files of remote attachments created before `cutoff`.
 * Each batch clears the rows' stored paths in one transaction, then deletes
 * the files once it committed (a file left behind by a crash is harmless; a
 * row pointing at a missing file would not be).
 */
export async function removeRemoteMediaCache(
  db: Db,
  store: MediaStore,
  cutoff: Date,
  options: JobOptions = {},
): Promise<MediaRemoval> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const [{ n }] = rowsOf<{ n: number | string }>(
    await db.execute(sql`SELECT count(*) AS n FROM media_attachments m
      JOIN accounts a ON a.id = m.account_id WHERE ${cached(cutoff)}`),
  );
  const total = Number(n);
  const out: MediaRemoval = { attachments: 0, files: 0, bytes: 0, paths: [] };
  let examined = 0;
  let cursor = "0";
  options.onProgress?.(0, total);
  while (true) {
    const ids = rowsOf<{ id: string }>(
      await db.execute(sql`SELECT m.id::text AS id FROM media_attachments m
        JOIN accounts a ON a.id = m.account_id
        WHERE m.id > ${cursor}::bigint AND ${cached(cutoff)}
        ORDER BY m.id LIMIT ${batchSize}`),
    ).map((r) => String(r.id));
    if (ids.length === 0) break;
    cursor = ids.at(-1)!;
    let rows: { id: string; file_path: string | null; preview_path: string | null }[];
    if (options.dryRun) {
      rows = rowsOf(
        await db.execute(sql`SELECT m.id::text AS id, m.file_path, m.preview_path
          FROM media_attachments m JOIN accounts a ON a.id = m.account_id
          WHERE m.id = ANY(${sql.param(ids)}::bigint[]) AND ${cached(cutoff)}`),
      );
    } else {
      // Conditions checked again under the lock; rows in use are skipped.
      rows = await db.transaction(async (tx) =>
        rowsOf(
          await tx.execute(sql`WITH old AS (
              SELECT m.id, m.file_path, m.preview_path
              FROM media_attachments m JOIN accounts a ON a.id = m.account_id
              WHERE m.id = ANY(${sql.param(ids)}::bigint[]) AND ${cached(cutoff)}
              FOR UPDATE OF m SKIP LOCKED
            )
            UPDATE media_attachments m SET
              file_path = CASE WHEN m.file_path ~* '^https?://' THEN m.file_path END,
              preview_path = CASE WHEN m.preview_path ~* '^https?://' THEN m.preview_path END,
              cached_at = NULL, preview_file_size = NULL
            FROM old WHERE m.id = old.id
            RETURNING m.id::text AS id, old.file_path, old.preview_path`),
        )
      );
    }
    for (const row of rows) {
      out.attachments++;
      for (const path of storedPaths(row)) {
        const size = await store.size(path);
        if (size === null) continue; // already gone: the row is fixed all the same
        if (!options.dryRun) await store.delete([path]);
        out.files++;
        out.bytes += size;
        out.paths.push(path);
      }
    }
    examined += ids.length;
    options.onProgress?.(examined, total);
  }
  return out;
}

/** Detached remote attachments: on `m` joined to `a`. */
function detached(cutoff: Date) {
  return sql`a.domain IS NOT NULL AND m.remote_url IS NOT NULL
    AND m.status_id IS NULL AND m.scheduled_status_id IS NULL
    AND m.created_at < ${cutoff.toISOString()}::timestamptz
    AND NOT EXISTS (SELECT 1 FROM status_edits e WHERE e.account_id = m.account_id
      AND e.media_attachment_ids @> jsonb_build_array(m.id::text))`;
}

/**
 * Deletes remote attachments that no status holds any more (a remote Delete
 * or edit detaches them, and the cleanup of unattached uploads only takes
 * local ones), unless an edit history still shows them; with their stored
 * files. Same batches and locks as {@link removeRemoteMediaCache}.
 */
export async function removeDetachedRemoteMedia(
  db: Db,
  store: MediaStore,
  cutoff: Date,
  options: JobOptions = {},
): Promise<Omit<MediaRemoval, "paths">> {
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const [{ n }] = rowsOf<{ n: number | string }>(
    await db.execute(sql`SELECT count(*) AS n FROM media_attachments m
      JOIN accounts a ON a.id = m.account_id WHERE ${detached(cutoff)}`),
  );
  const total = Number(n);
  const out = { attachments: 0, files: 0, bytes: 0 };
  let examined = 0;
  let cursor = "0";
  options.onProgress?.(0, total);
  while (true) {
    const ids = rowsOf<{ id: string }>(
      await db.execute(sql`SELECT m.id::text AS id FROM media_attachments m
        JOIN accounts a ON a.id = m.account_id
        WHERE m.id > ${cursor}::bigint AND ${detached(cutoff)}
        ORDER BY m.id LIMIT ${batchSize}`),
    ).map((r) => String(r.id));
    if (ids.length === 0) break;
    cursor = ids.at(-1)!;
    type Row = { id: string; file_path: string | null; preview_path: string | null };
    const rows: Row[] = options.dryRun
      ? rowsOf(
        await db.execute(sql`SELECT m.id::text AS id, m.file_path, m.preview_path
          FROM media_attachments m JOIN accounts a ON a.id = m.account_id
          WHERE m.id = ANY(${sql.param(ids)}::bigint[]) AND ${detached(cutoff)}`),
      )
      : await db.transaction(async (tx) =>
        rowsOf(
          await tx.execute(sql`DELETE FROM media_attachments WHERE id IN (
              SELECT m.id FROM media_attachments m JOIN accounts a ON a.id = m.account_id
              WHERE m.id = ANY(${sql.param(ids)}::bigint[]) AND ${detached(cutoff)}
              FOR UPDATE OF m SKIP LOCKED)
            RETURNING id::text AS id, file_path, preview_path`),
        )
      );
    for (const row of rows) {
      out.attachments++;
      for (const path of storedPaths(row)) {
        const size = await store.size(path);
        if (size === null) continue;
        if (!options.dryRun) await store.delete([path]);
        out.files++;
        out.bytes += size;
      }
    }
    examined += ids.length;
    options.onProgress?.(examined, total);
  }
  return out;
}
