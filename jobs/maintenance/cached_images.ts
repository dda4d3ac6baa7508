/**
 * Removing our copies of remote images that are not attachments: link card
 * images (`preview_cards remove`, and the worker's
 * MEDIA_CACHE_RETENTION_PERIOD) and remote avatars and headers (`media
 * remove --prune-profiles` / `--remove-headers`, tootctl's; never by the
 * worker: they are shown on every page and small). The rows keep their
 * remote URLs, so the API shows the media proxy's URL and the next look
 * fetches the image again.
 *
 * Same walk as remote_media.ts: primary-key order, one batch per
 * transaction, rows in use skipped, files deleted once the batch commits.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import type { MediaStore } from "../../actors/media/store/mod.ts";
import { BATCH_SIZE, type JobOptions, rowsOf } from "./batches.ts";

/** Which copies a run removes. */
interface CachedImages {
  /** `accounts` or `preview_cards` (constants, never input). */
  table: "accounts" | "preview_cards";
  /** The key columns emptied, with the columns that describe each copy. */
  columns: { key: string; clear: string[] }[];
  /** The candidate rows, on the table aliased `t`. */
  where: SQL;
}

/** What a run removed (or, dry, would remove). */
export interface ImageRemoval {
  /** Rows visited whose copies went. */
  rows: number;
  files: number;
  bytes: number;
  /** The keys, for the listing. */
  paths: string[];
}

/** Card image copies made before `cutoff`. */
export function cardImagesBefore(cutoff: Date): CachedImages {
  return {
    table: "preview_cards",
    columns: [{ key: "image_key", clear: ["image_file_size", "image_cached_at"] }],
    where: sql`t.image_key IS NOT NULL
      AND coalesce(t.image_cached_at, t.updated_at) < ${cutoff.toISOString()}::timestamptz`,
  };
}

/**
 * Avatars and headers (or headers only) of remote accounts neither seen
 * (WebFinger) nor updated since `cutoff`, and, unless `includeFollows`, that
 * no local account follows or is followed by (tootctl's rule).
 */
export function profileImagesBefore(
  cutoff: Date,
  options: { headersOnly: boolean; includeFollows: boolean },
): CachedImages {
  const at = cutoff.toISOString();
  const avatar = { key: "avatar_key", clear: ["avatar_file_size", "avatar_cached_at"] };
  const header = { key: "header_key", clear: ["header_file_size", "header_cached_at"] };
  const columns = options.headersOnly ? [header] : [avatar, header];
  const held = sql.raw(columns.map((c) => `t.${c.key} IS NOT NULL`).join(" OR "));
  const unfollowed = options.includeFollows ? sql`TRUE` : sql`NOT EXISTS (
      SELECT 1 FROM follows f JOIN accounts l ON l.domain IS NULL
        AND l.id IN (f.account_id, f.target_account_id)
      WHERE t.id IN (f.account_id, f.target_account_id))`;
  return {
    table: "accounts",
    columns,
    where: sql`t.domain IS NOT NULL AND (${held})
      AND coalesce(t.last_webfingered_at, t.updated_at) < ${at}::timestamptz
      AND t.updated_at < ${at}::timestamptz AND ${unfollowed}`,
  };
}

/** Removes the copies `spec` selects; see the module's comment. */
export async function removeCachedImages(
  db: Db,
  store: MediaStore,
  spec: CachedImages,
  options: JobOptions = {},
): Promise<ImageRemoval> {
  const table = sql.raw(spec.table);
  const keys = spec.columns.map((c) => c.key);
  const oldKeys = sql.raw(keys.map((k) => `t.${k}`).join(", "));
  const returned = sql.raw(keys.map((k) => `old.${k} AS ${k}`).join(", "));
  const cleared = sql.raw(
    spec.columns.flatMap((c) => [c.key, ...c.clear]).map((col) => `${col} = NULL`).join(", "),
  );
  const [{ n }] = rowsOf<{ n: number | string }>(
    await db.execute(sql`SELECT count(*) AS n FROM ${table} t WHERE ${spec.where}`),
  );
  const total = Number(n);
  const out: ImageRemoval = { rows: 0, files: 0, bytes: 0, paths: [] };
  let cursor = "0";
  let examined = 0;
  options.onProgress?.(0, total);
  for (;;) {
    const ids = rowsOf<{ id: string }>(
      await db.execute(sql`SELECT t.id::text AS id FROM ${table} t
        WHERE t.id > ${cursor}::bigint AND ${spec.where} ORDER BY t.id
        LIMIT ${options.batchSize ?? BATCH_SIZE}`),
    ).map((r) => String(r.id));
    if (ids.length === 0) break;
    cursor = ids.at(-1)!;
    const batch = sql`SELECT t.id, ${oldKeys} FROM ${table} t
      WHERE t.id = ANY(${sql.param(ids)}::bigint[]) AND ${spec.where}`;
    const rows = rowsOf<Record<string, string | null>>(
      options.dryRun ? await db.execute(sql`SELECT ${returned} FROM (${batch}) old`) : await db
        .transaction(async (tx) =>
          await tx.execute(sql`WITH old AS (${batch} FOR UPDATE OF t SKIP LOCKED)
            UPDATE ${table} x SET ${cleared} FROM old WHERE x.id = old.id RETURNING ${returned}`)
        ),
    );
    for (const row of rows) {
      out.rows++;
      for (const key of keys) {
        const path = row[key];
        if (!path) continue;
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
