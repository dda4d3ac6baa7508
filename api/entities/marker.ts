/**
 * The Marker entity and the marker set: `{home: Marker, notifications: Marker}`,
 * keyed by timeline, with only the timelines that have a marker.
 */
import type { markers } from "../../db/schema/mod.ts";

export interface MarkerJson {
  last_read_id: string;
  version: number;
  updated_at: string;
}

/** Serializes one marker row. */
export function markerEntity(row: typeof markers.$inferSelect): MarkerJson {
  return {
    last_read_id: row.lastReadId,
    version: row.version,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Serializes marker rows as the object keyed by timeline that both marker routes answer. */
export function markerSet(
  rows: readonly (typeof markers.$inferSelect)[],
): Record<string, MarkerJson> {
  const out: Record<string, MarkerJson> = {};
  for (const row of rows) out[row.timeline] = markerEntity(row);
  return out;
}
