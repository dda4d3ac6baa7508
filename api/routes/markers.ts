/**
 * Markers (user tokens):
 * - GET /api/v1/markers?timeline[]=home&timeline[]=notifications
 *   (read:statuses) → {home?: Marker, notifications?: Marker}; no timeline
 *   asked → {}
 * - POST /api/v1/markers (write:statuses): home[last_read_id],
 *   notifications[last_read_id] → the markers sent, as stored; 409
 *   {"error":"Conflict during update, please try again"} when another client
 *   changed one of them at the same moment.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { readPermittedObject, readString, readStringArray } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { markerSet } from "../entities/marker.ts";
import {
  getMarkers,
  MARKER_TIMELINES,
  MarkerConflictError,
  type MarkerTimeline,
  saveMarkers,
} from "../../actors/timelines/markers.ts";

/** The marker routes, mounted at the root of the app. */
export function markerRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/markers", requireUser("read:statuses"), async (c) => {
    const timelines = readStringArray(await params(c), "timeline", { maxItems: 10 }) ?? [];
    const rows = await getMarkers(c.get("ctx").database.db, c.get("user")!.id, timelines);
    return c.json(markerSet(rows));
  });

  app.post("/api/v1/markers", requireUser("write:statuses"), async (c) => {
    const p = await params(c);
    const values: Partial<Record<MarkerTimeline, string | undefined>> = {};
    for (const timeline of MARKER_TIMELINES) {
      // `home=x` is dropped, as Rails' strong parameters drop it.
      const given = readPermittedObject(p, timeline);
      if (given) values[timeline] = readString(given, "last_read_id");
    }
    try {
      const rows = await withValidation(() =>
        saveMarkers(c.get("ctx").database.db, c.get("user")!.id, values)
      );
      return c.json(markerSet(rows));
    } catch (error) {
      if (error instanceof MarkerConflictError) throw new ApiError(409, error.message);
      throw error;
    }
  });

  return app;
}
