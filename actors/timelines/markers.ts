/**
 * Read positions of the home and notifications timelines, shared by a user's
 * clients. Each marker carries a version that every change increments;
 * a change is written only if the version is still the one read
 * (optimistic concurrency, as Rails' lock_version), so of two clients that
 * race, one wins and the other is told to try again (MarkerConflictError →
 * 409) instead of silently overwriting.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { markers } from "../../db/schema/mod.ts";
import { Problems } from "../../model/errors.ts";

export type MarkerRow = typeof markers.$inferSelect;

/** The timelines that have markers. */
export const MARKER_TIMELINES = ["home", "notifications"] as const;
export type MarkerTimeline = typeof MARKER_TIMELINES[number];

/** Longest accepted `last_read_id` (ids are at most 20 digits; some clients send other cursors). */
export const MAX_LAST_READ_ID_LENGTH = 255;

/** Another client changed the marker between our read and our write. */
export class MarkerConflictError extends Error {
  constructor() {
    super("Conflict during update, please try again");
  }
}

/** The user's markers of the given timelines (unknown names are ignored). */
export async function getMarkers(
  db: Executor,
  userId: string,
  timelines: readonly string[],
): Promise<MarkerRow[]> {
  const wanted = timelines.filter((t) => (MARKER_TIMELINES as readonly string[]).includes(t));
  if (wanted.length === 0) return [];
  return await db.select().from(markers)
    .where(and(eq(markers.userId, userId), inArray(markers.timeline, [...new Set(wanted)])));
}

/**
 * Writes one marker if its version is still `seenVersion` (null: the marker
 * did not exist when read). Returns the stored row; throws
 * MarkerConflictError when another writer got there first.
 */
export async function writeMarker(
  tx: Executor,
  userId: string,
  timeline: MarkerTimeline,
  lastReadId: string,
  seenVersion: number | null,
): Promise<MarkerRow> {
  const rows = seenVersion == null
    ? await tx.insert(markers).values({ userId, timeline, lastReadId })
      .onConflictDoNothing().returning()
    : await tx.update(markers)
      .set({ lastReadId, version: sql`${markers.version} + 1`, updatedAt: sql`now()` })
      .where(and(
        eq(markers.userId, userId),
        eq(markers.timeline, timeline),
        eq(markers.version, seenVersion),
      ))
      .returning();
  if (rows.length === 0) throw new MarkerConflictError();
  return rows[0];
}

/**
 * Saves the given markers in one transaction and returns them. A marker
 * whose value does not change is returned as it is (its version stays).
 */
export async function saveMarkers(
  db: Db,
  userId: string,
  values: Partial<Record<MarkerTimeline, string | undefined>>,
): Promise<MarkerRow[]> {
  const problems = new Problems();
  for (const timeline of MARKER_TIMELINES) {
    if (!(timeline in values)) continue;
    const value = values[timeline];
    if (value == null || value.trim() === "") {
      problems.add("last_read_id", "ERR_BLANK", "can't be blank");
    } else if (value.length > MAX_LAST_READ_ID_LENGTH) {
      problems.add(
        "last_read_id",
        "ERR_TOO_LONG",
        `is too long (maximum is ${MAX_LAST_READ_ID_LENGTH} characters)`,
      );
    }
  }
  problems.throwIfAny();
  return await db.transaction(async (tx) => {
    const current = await getMarkers(tx, userId, Object.keys(values));
    const out: MarkerRow[] = [];
    for (const timeline of MARKER_TIMELINES) {
      const lastReadId = values[timeline];
      if (lastReadId == null) continue;
      const existing = current.find((m) => m.timeline === timeline);
      if (existing && existing.lastReadId === lastReadId) {
        out.push(existing);
        continue;
      }
      out.push(await writeMarker(tx, userId, timeline, lastReadId, existing?.version ?? null));
    }
    return out;
  });
}
