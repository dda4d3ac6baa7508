/**
 * The ScheduledStatus entity: {id, scheduled_at, params, media_attachments}.
 * `params` is stored exactly as answered (see actors/statuses/schedule.ts).
 */
import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { mediaAttachments, type scheduledStatuses } from "../../db/schema/mod.ts";
import { mediaAttachmentEntity, type MediaAttachmentJson } from "./media_attachment.ts";

export type ScheduledStatusRow = typeof scheduledStatuses.$inferSelect;

/** The ScheduledStatus entity. */
export interface ScheduledStatusJson {
  id: string;
  scheduled_at: string;
  params: Record<string, unknown>;
  media_attachments: MediaAttachmentJson[];
}

/** Serializes scheduled statuses with their reserved media (one query for all media). */
export async function serializeScheduledStatuses(
  ctx: AppContext,
  rows: readonly ScheduledStatusRow[],
): Promise<ScheduledStatusJson[]> {
  const ids = rows.map((r) => r.id);
  const media = ids.length
    ? await ctx.database.db.select().from(mediaAttachments)
      .where(inArray(mediaAttachments.scheduledStatusId, ids)).orderBy(mediaAttachments.id)
    : [];
  return rows.map((row) => {
    const order = (row.params.media_ids as string[] | null) ?? [];
    const mine = media.filter((m) => m.scheduledStatusId === row.id)
      .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    return {
      id: row.id,
      scheduled_at: row.scheduledAt.toISOString(),
      params: row.params,
      media_attachments: mine.map((m) => mediaAttachmentEntity(ctx.mediaUrls, m)),
    };
  });
}
