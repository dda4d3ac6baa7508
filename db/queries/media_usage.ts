/**
 * What media take, from the sizes the rows keep (one statement): tootctl's
 * `media usage` lines. Files whose size a row does not know (older rows)
 * count as 0; `media usage --store`-style walks of the store itself are
 * not made here.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../connection.ts";

/** Bytes per kind: all, and the local part (uploads, local emoji and profiles). */
export interface MediaUsage {
  attachments: { total: number; local: number };
  emoji: { total: number; local: number };
  cards: number;
  avatars: { total: number; local: number };
  headers: { total: number; local: number };
  archives: number;
  /** Copies of remote media among the above (attachments, emoji, cards, profiles). */
  cachedRemote: number;
}

type Row = Record<string, string | number | null>;

/** The figures, in bytes. */
export async function mediaUsage(db: Executor): Promise<MediaUsage> {
  const result = await db.execute(sql`SELECT
    (SELECT coalesce(sum(coalesce(m.file_size, 0) + coalesce(m.preview_file_size, 0)), 0)
      FROM media_attachments m WHERE m.file_path IS NOT NULL) AS attachments,
    (SELECT coalesce(sum(coalesce(m.file_size, 0) + coalesce(m.preview_file_size, 0)), 0)
      FROM media_attachments m WHERE m.file_path IS NOT NULL AND m.remote_url IS NULL)
      AS attachments_local,
    (SELECT coalesce(sum(coalesce(m.file_size, 0) + coalesce(m.preview_file_size, 0)), 0)
      FROM media_attachments m WHERE m.cached_at IS NOT NULL) AS attachments_cached,
    (SELECT coalesce(sum(image_file_size), 0) FROM custom_emojis) AS emoji,
    (SELECT coalesce(sum(image_file_size), 0) FROM custom_emojis WHERE domain IS NULL)
      AS emoji_local,
    (SELECT coalesce(sum(image_file_size), 0) FROM preview_cards) AS cards,
    (SELECT coalesce(sum(avatar_file_size), 0) FROM accounts) AS avatars,
    (SELECT coalesce(sum(avatar_file_size), 0) FROM accounts WHERE domain IS NULL)
      AS avatars_local,
    (SELECT coalesce(sum(header_file_size), 0) FROM accounts) AS headers,
    (SELECT coalesce(sum(header_file_size), 0) FROM accounts WHERE domain IS NULL)
      AS headers_local,
    (SELECT coalesce(sum(size), 0) FROM backups WHERE file_key IS NOT NULL) AS archives`);
  const [row] = (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
  const n = (name: string) => Number(row[name] ?? 0);
  const pair = (name: string) => ({ total: n(name), local: n(`${name}_local`) });
  const usage = {
    attachments: pair("attachments"),
    emoji: pair("emoji"),
    cards: n("cards"),
    avatars: pair("avatars"),
    headers: pair("headers"),
    archives: n("archives"),
  };
  const remote = (p: { total: number; local: number }) => p.total - p.local;
  return {
    ...usage,
    cachedRemote: n("attachments_cached") + remote(usage.emoji) + usage.cards +
      remote(usage.avatars) + remote(usage.headers),
  };
}
