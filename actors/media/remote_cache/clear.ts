/**
 * Forgetting every cached copy of a domain's media (a domain block with
 * reject_media or suspend, actors/moderation/instance_domain_blocks.ts):
 * the key columns are cleared in the block's transaction and the files
 * recorded for deletion once it commits (actors/media/discarded.ts). The
 * rows keep their remote URLs; nothing is fetched again while the block
 * stands (the media proxy refuses the domain).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../../db/connection.ts";
import { discardMediaFiles } from "../discarded.ts";

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * Clears the copies of the media of the accounts `accountsWhere` selects
 * (a condition on `accounts`) and of the emoji `emojiWhere` selects (on
 * `custom_emojis`).
 */
export async function clearCachedMedia(
  tx: Executor,
  accountsWhere: SQL,
  emojiWhere: SQL,
): Promise<void> {
  const keys = rowsOf<{ key: string | null }>(
    await tx.execute(sql`
      SELECT unnest(ARRAY[m.file_path, m.preview_path]) AS key FROM media_attachments m
        WHERE m.cached_at IS NOT NULL
          AND m.account_id IN (SELECT id FROM accounts WHERE ${accountsWhere})
      UNION ALL SELECT unnest(ARRAY[avatar_key, header_key]) FROM accounts WHERE ${accountsWhere}
      UNION ALL SELECT unnest(ARRAY[file_path, static_path]) FROM custom_emojis
        WHERE domain IS NOT NULL AND ${emojiWhere}`),
  ).map((r) => r.key);
  await discardMediaFiles(tx, keys);
  await tx.execute(sql`UPDATE media_attachments SET file_path = NULL, preview_path = NULL,
      file_size = NULL, preview_file_size = NULL, cached_at = NULL
    WHERE cached_at IS NOT NULL
      AND account_id IN (SELECT id FROM accounts WHERE ${accountsWhere})`);
  await tx.execute(sql`UPDATE accounts SET avatar_key = NULL, avatar_file_size = NULL,
      avatar_cached_at = NULL, header_key = NULL, header_file_size = NULL, header_cached_at = NULL
    WHERE ${accountsWhere} AND (avatar_key IS NOT NULL OR header_key IS NOT NULL)`);
  await tx.execute(sql`UPDATE custom_emojis SET file_path = NULL, static_path = NULL,
      image_file_size = NULL, cached_at = NULL
    WHERE domain IS NOT NULL AND ${emojiWhere} AND file_path IS NOT NULL`);
}
