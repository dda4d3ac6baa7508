/**
 * The MediaAttachment entity (Mastodon 4.5) from `media_attachments` rows.
 *
 * Stored files (uploads, and copies of remote files) are at the store's
 * URLs (actors/media/urls.ts); a remote attachment we hold no copy of is at
 * the media proxy's signed URL, which fetches and keeps a copy (Mastodon's
 * `media_proxy_url`). The remote server's own URL is only ever in
 * `remote_url`: a client is never sent to a host we have not checked.
 */
import { inArray, sql } from "drizzle-orm";
import { anyId } from "../../db/queries/any_id.ts";
import { prepared } from "../../db/queries/prepared.ts";
import type { Executor } from "../../db/connection.ts";
import { mediaAttachments } from "../../db/schema/mod.ts";
import type { MediaUrls } from "../../actors/media/urls.ts";

export type MediaAttachmentRow = typeof mediaAttachments.$inferSelect;

/** The MediaAttachment entity. */
export interface MediaAttachmentJson {
  id: string;
  type: string;
  url: string | null;
  preview_url: string | null;
  remote_url: string | null;
  preview_remote_url: string | null;
  text_url: string | null;
  meta: Record<string, unknown> | null;
  description: string | null;
  blurhash: string | null;
}

/** Serializes one attachment row. */
export function mediaAttachmentEntity(
  urls: MediaUrls,
  row: MediaAttachmentRow,
): MediaAttachmentJson {
  const fileUrl = (key: string | null) => key ? urls.file(key) : null;
  const local = fileUrl(row.filePath);
  const processing = row.state === "processing";
  const proxied = local == null && row.remoteUrl != null;
  const proxy = (variant: "original" | "small") =>
    urls.proxy({ kind: "attachment", variant }, row.id);
  const url = processing ? null : local ?? (proxied ? proxy("original") : null);
  // Without a preview image, only a still image can stand in for itself: a
  // video or audio file in an <img> shows nothing. A remote file of unknown
  // type (or one whose server's media is rejected by a domain block) is
  // only linked, never shown as a preview.
  const stillImage = row.type === "image" || (row.type === "unknown" && local != null);
  const preview = fileUrl(row.previewPath) ??
    (stillImage ? local ?? (proxied ? proxy("small") : null) : null);
  return {
    id: row.id,
    type: row.type,
    url,
    preview_url: preview,
    remote_url: row.remoteUrl ?? null,
    preview_remote_url: null,
    text_url: null,
    meta: row.meta && Object.keys(row.meta).length ? row.meta : null,
    description: row.description ?? null,
    blurhash: row.blurhash ?? null,
  };
}

/** Attachment rows by status id (one query), in upload order per status. */
export async function loadMediaByStatus(
  db: Executor,
  statusIds: readonly string[],
): Promise<Map<string, MediaAttachmentRow[]>> {
  const out = new Map<string, MediaAttachmentRow[]>();
  if (statusIds.length === 0) return out;
  const rows = await prepared(db, "media_by_status", () =>
    db.select().from(mediaAttachments)
      .where(anyId(mediaAttachments.statusId, sql.placeholder("ids")))
      .orderBy(mediaAttachments.id).prepare("media_by_status"))
    .execute({ ids: [...new Set(statusIds)] });
  for (const row of rows) {
    const list = out.get(row.statusId!) ?? [];
    list.push(row);
    out.set(row.statusId!, list);
  }
  return out;
}

/** Attachment rows by id (one query), in the order of `ids`; unknown ids skipped. */
export async function loadMediaByIds(
  db: Executor,
  ids: readonly string[],
): Promise<MediaAttachmentRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.select().from(mediaAttachments)
    .where(inArray(mediaAttachments.id, [...new Set(ids)]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is MediaAttachmentRow => r != null);
}
