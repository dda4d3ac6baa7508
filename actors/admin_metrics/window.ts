/**
 * The time window of an admin metric request (Mastodon's Admin::Metrics
 * start_at/end_at): whole UTC days, end day included. Rows are found by id
 * range where the table's ids are snowflakes (db/ids.ts: the id encodes the
 * creation time), so a window reads through the primary key index and never
 * scans a table.
 */
import { type SQL, sql } from "drizzle-orm";
import { minIdAt } from "../../db/ids.ts";

const DAY_MS = 86_400_000;
/** The longest window served: a few years of daily points is plenty for a dashboard. */
export const MAX_WINDOW_DAYS = 1_100;

/** Bad metric input (a date that is not one, a window too long): the API's 422. */
export class MetricInputError extends Error {}

export interface Window {
  /** Midnight UTC of the first day. */
  from: Date;
  /** Midnight UTC after the last day (exclusive). */
  to: Date;
  days: number;
}

/** A day given as an ISO 8601 date or date-time; the time is ignored, as Mastodon does. */
export function parseDay(value: string | undefined, name: string): Date {
  const m = value ? /^\s*(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.+\-Z]*)?\s*$/i.exec(value) : null;
  if (!m) throw new MetricInputError(`Invalid date supplied for ${name}`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) {
    throw new MetricInputError(`Invalid date supplied for ${name}`);
  }
  return date;
}

/** The window from `start_at` to `end_at` (both days included); 422 when either is bad. */
export function readWindow(startAt: string | undefined, endAt: string | undefined): Window {
  const from = parseDay(startAt, "start_at");
  const last = parseDay(endAt, "end_at");
  const days = Math.max(0, Math.round((last.getTime() - from.getTime()) / DAY_MS) + 1);
  if (days > MAX_WINDOW_DAYS) {
    throw new MetricInputError(`The period may span at most ${MAX_WINDOW_DAYS} days`);
  }
  return { from, to: new Date(from.getTime() + days * DAY_MS), days };
}

/**
 * A dimension's window: as readWindow, but a side left out is open, as in
 * Mastodon, whose dimensions query `start_at..end_at` with nil ends (all of
 * history up to today; masto.js asks for dimensions without dates). A
 * malformed date is still refused.
 */
export function readOpenWindow(startAt: string | undefined, endAt: string | undefined): Window {
  const given = (v: string | undefined) => v != null && v.trim() !== "";
  // Clamped to what ids can encode (1970 to today): no row lies outside.
  const epoch = new Date(0);
  const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const asked = given(startAt) ? parseDay(startAt, "start_at") : epoch;
  const from = asked < epoch ? epoch : asked;
  const end = given(endAt) ? parseDay(endAt, "end_at") : today;
  const last = end > today ? today : end;
  const days = Math.max(0, Math.round((last.getTime() - from.getTime()) / DAY_MS) + 1);
  return { from, to: new Date(from.getTime() + days * DAY_MS), days };
}

/** The window of the same length just before `w` (for previous_total). */
export function previousWindow(w: Window): Window {
  return { from: new Date(w.from.getTime() - w.days * DAY_MS), to: w.from, days: w.days };
}

/** `col >= lowest id of from AND col < lowest id of to`, for snowflake-keyed rows. */
export function idRange(column: SQL, w: Window): SQL {
  return sql`${column} >= ${minIdAt(w.from)}::bigint AND ${column} < ${minIdAt(w.to)}::bigint`;
}

/** `col >= from AND col < to`, for a timestamp column. */
export function timeRange(column: SQL, w: Window): SQL {
  return sql`${column} >= ${w.from.toISOString()}::timestamptz AND ${column} < ${w.to.toISOString()}::timestamptz`;
}

/** Rows of a raw query, whichever driver answered. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as T[];
}

/** The days of a window, midnight UTC each. */
export function daysOf(w: Window): Date[] {
  return Array.from({ length: w.days }, (_, i) => new Date(w.from.getTime() + i * DAY_MS));
}
