/**
 * The admin dashboard figures (Mastodon's Api::V1::Admin::MeasuresController,
 * DimensionsController and RetentionController), for staff whose role has
 * `view_dashboard`, with an admin:read token:
 * - POST /api/v1/admin/measures (keys[], start_at, end_at, per-key params
 *   such as tag_uses[id] or instance_statuses[domain]) → Admin::Measure[]
 * - POST /api/v1/admin/dimensions (keys[], start_at, end_at, limit, per-key
 *   params) → Admin::Dimension[]
 * - POST /api/v1/admin/retention (start_at, end_at, frequency day|month)
 *   → Admin::Cohort[]
 * Unknown keys are left out, as Mastodon does; a date that is not one, or a
 * window past the limits, is a 422. Nothing here writes, so no audit rows.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { type Params, params } from "../../params.ts";
import { readInt, readObject, readString, readStringArray } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import {
  serializeCohort,
  serializeDimension,
  serializeMeasure,
} from "../../entities/admin_metrics.ts";
import { computeMeasure, MEASURES } from "../../../actors/admin_metrics/measures.ts";
import { DIMENSIONS } from "../../../actors/admin_metrics/dimensions.ts";
import { computeRetention, type Frequency } from "../../../actors/admin_metrics/retention.ts";
import {
  MetricInputError,
  readOpenWindow,
  readWindow,
  type Window,
} from "../../../actors/admin_metrics/window.ts";

/** A dimension's default and largest `limit`. */
const DIMENSION_LIMIT = { default: 10, max: 100 };

function windowOf(p: Params, read = readWindow): Window {
  try {
    return read(
      readString(p, "start_at", { maxLength: 64 }),
      readString(p, "end_at", { maxLength: 64 }),
    );
  } catch (error) {
    if (error instanceof MetricInputError) throw new ApiError(422, error.message);
    throw error;
  }
}

/** The known keys asked for, each once, in the order asked. */
function keysOf(p: Params, known: Record<string, unknown>): string[] {
  const keys = readStringArray(p, "keys", { maxItems: 100 }) ?? [];
  return [...new Set(keys)].filter((k) => Object.hasOwn(known, k));
}

/**
 * A key's own parameter (`tag_uses[id]`, `instance_statuses[domain]`), or ""
 * when absent or malformed: the figures are then zero, never an error.
 */
function argOf(p: Params, key: string, param: "id" | "domain" | undefined): string {
  if (!param) return "";
  let value = "";
  try {
    const nested = readObject(p, key);
    value = nested ? readString(nested, param) ?? "" : "";
  } catch {
    // A malformed param is no param: the figures are zero.
  }
  // "0" is no tag (ids start far above); a domain longer than DNS allows is none either.
  if (param === "id") return /^\d{1,19}$/.test(value) ? value : "0";
  return value.length > 253 ? "" : value.trim().toLowerCase();
}

/** The admin dashboard routes, mounted at the root of the app. */
export function adminMetricsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireStaff("view_dashboard", "admin:read");
  const db = (c: Context<ApiEnv>) => c.get("ctx").database.db;

  app.post("/api/v1/admin/measures", read, async (c) => {
    const p = await params(c);
    const keys = keysOf(p, MEASURES);
    const w = windowOf(p);
    const out = [];
    for (const key of keys) {
      const arg = argOf(p, key, MEASURES[key].param);
      out.push(serializeMeasure(await computeMeasure(db(c), key, w, arg)));
    }
    return c.json(out);
  });

  app.post("/api/v1/admin/dimensions", read, async (c) => {
    const p = await params(c);
    const keys = keysOf(p, DIMENSIONS);
    const w = windowOf(p, readOpenWindow);
    const asked = readInt(p, "limit", { min: -1_000_000_000, max: 1_000_000_000 });
    const limit = Math.min(DIMENSION_LIMIT.max, Math.max(1, asked ?? DIMENSION_LIMIT.default));
    const out = [];
    for (const key of keys) {
      const def = DIMENSIONS[key];
      const items = await def.items(db(c), w, limit, argOf(p, key, def.param));
      out.push(serializeDimension(key, items));
    }
    return c.json(out);
  });

  app.post("/api/v1/admin/retention", read, async (c) => {
    const p = await params(c);
    const w = windowOf(p);
    const asked = readString(p, "frequency", { maxLength: 16 });
    if (asked !== "day" && asked !== "month") {
      throw new ApiError(422, "frequency must be day or month");
    }
    try {
      const cohorts = await computeRetention(db(c), w, asked as Frequency);
      return c.json(cohorts.map(serializeCohort));
    } catch (error) {
      if (error instanceof MetricInputError) throw new ApiError(422, error.message);
      throw error;
    }
  });
  return app;
}
