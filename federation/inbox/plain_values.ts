/**
 * The value shapes federation/inbox/plain_create.ts reads (IRIs, instants,
 * strings, integers), each read as Fedify's JSON-LD parse reads it; any
 * other shape ends the reading (the activity then takes Fedify's parse).
 */
import { isJson, type Json } from "../dialects/terms.ts";

/** Thrown (and caught by plainCreate) where the document is not of the known shape. */
export class NotPlain extends Error {}

export function fail(): never {
  throw new NotPlain();
}

/** An RFC 3339 instant, which Fedify's Temporal and the runtime's read alike. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export function onlyKeys(json: Json, keys: ReadonlySet<string>): void {
  for (const key of Object.keys(json)) if (!keys.has(key)) fail();
}

/** `read(value)`, or undefined when the value is absent or null (JSON-LD drops nulls). */
export function optional<T>(value: unknown, read: (value: unknown) => T): T | undefined {
  return value == null ? undefined : read(value);
}

export function httpUrl(value: unknown): URL {
  if (typeof value !== "string") fail();
  const url = URL.parse(value);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) fail();
  return url;
}

/** One IRI or a list of them (ActivityStreams' `to`, `cc`). */
export function iris(value: unknown): URL[] {
  if (value == null) return [];
  return (Array.isArray(value) ? value : [value]).map(httpUrl);
}

export function instant(value: unknown): Temporal.Instant {
  if (typeof value !== "string" || !INSTANT.test(value)) fail();
  return Temporal.Instant.from(value);
}

export function text(value: unknown): string {
  return typeof value === "string" ? value : fail();
}

/** A JSON object, else the end of the reading. */
export function object(value: unknown): Json {
  return isJson(value) ? value : fail();
}

/** A count or a size in pixels: a non-negative integer, as `xsd:nonNegativeInteger` reads. */
export function count(value: unknown): number {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? value as number : fail();
}

/** One item or a list of them, as JSON-LD reads a property's values. */
export function items(value: unknown): unknown[] {
  if (value == null) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Fails unless `value` is plain JSON data that nothing here reads and
 * JSON-LD cannot refuse: no keyword keys (`@type`, `@value`…) at any
 * depth, ids and types as strings, nested at most `depth` levels.
 */
export function inert(value: unknown, depth = 3): void {
  if (value === null || typeof value !== "object") return;
  if (depth === 0) fail();
  if (Array.isArray(value)) {
    for (const item of value) inert(item, depth - 1);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.startsWith("@")) fail();
    if ((key === "id" || key === "type") && typeof item !== "string") fail();
    inert(item, depth - 1);
  }
}
