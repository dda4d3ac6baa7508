/**
 * The trending link entity: a PreviewCard (the same serializer as a
 * status's `card`) with the link's 7-day history, like a Tag's.
 */
import { inArray } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import type { MediaUrls } from "../../actors/media/urls.ts";
import { previewCards } from "../../db/schema/mod.ts";
import type { TagHistoryDay } from "../../db/queries/tags.ts";
import { cardHistories } from "../../db/queries/trends.ts";
import { cardEntity } from "./status_content.ts";
import type { PreviewCardJson } from "./status.ts";

/** A trending link. */
export interface TrendLinkJson extends PreviewCardJson {
  history: TagHistoryDay[];
}

/** Serializes cards by id, in the order given (cards gone since are skipped). */
export async function serializeTrendLinks(
  database: Database,
  urls: MediaUrls,
  cardIds: readonly string[],
): Promise<TrendLinkJson[]> {
  if (cardIds.length === 0) return [];
  const [rows, histories] = await Promise.all([
    database.db.select().from(previewCards).where(inArray(previewCards.id, [...cardIds])),
    cardHistories(database, cardIds),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return cardIds.flatMap((id) => {
    const row = byId.get(id);
    return row ? [{ ...cardEntity(urls, row), history: histories.get(id) ?? [] }] : [];
  });
}
