/**
 * Leaf and small structured values for generated bodies: strings of every
 * awkward kind, numbers at the edges, wrong types where strings are expected,
 * real ids of the fuzz user's objects, and rarely something huge.
 */
import type { Rng } from "./prng.ts";

/** What the generators know about the target: real ids and URLs to reuse. */
export interface GenContext {
  /** Real ids by placeholder kind (`status`, `list`, `account`…). */
  ids: Record<string, string[]>;
  /** The instance's origin (`http://localhost:1234`). */
  origin: string;
  /** Local usernames (for actor URLs and mentions). */
  usernames: string[];
}

const AWKWARD_STRINGS = [
  "",
  " ",
  "\t\n\r",
  "null",
  "true",
  "0",
  "-1",
  "1.5",
  "1e400",
  "NaN",
  "public",
  "private",
  "unlisted",
  "direct",
  "en",
  "xx-YY",
  "2030-01-01T00:00:00Z",
  "1970-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "not a date",
  "https://example.com/",
  "http://127.0.0.1:1/",
  "javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "<script>alert(1)</script>",
  "<a href='x' onclick='y'>z</a>",
  "@admin@localhost #tag :emoji: https://example.com",
  "'; DROP TABLE statuses; --",
  "\u202eevil\u202c",
  "\ud800",
  "\udfff\ud800",
  "💥🐦‍⬛👩‍👩‍👧‍👦",
  "é".normalize("NFD"),
  "\u0000",
  "a\u0000b",
  "%00",
  "\\u0000",
  "read write follow push",
  "read:nothing",
  "authorization_code",
  "client_credentials",
  "password",
  "urn:ietf:wg:oauth:2.0:oob",
  "S256",
  "plain",
  "__proto__",
  "constructor",
  "[object Object]",
  "../../../etc/passwd",
];

const NUMBERS = [
  0,
  -0,
  1,
  -1,
  2 ** 31,
  2 ** 53,
  -(2 ** 63),
  1e308,
  -1e308,
  5e-324,
  0.1,
  3.14,
  9223372036854775807,
  123456789012345678901234567890,
];

/** A random string of mixed ASCII, control, BMP and astral characters. */
export function randomString(rng: Rng, maxLength = 40): string {
  const n = rng.int(maxLength + 1);
  let out = "";
  for (let i = 0; i < n; i++) {
    out += rng.weighted<() => string>([
      [8, () => String.fromCharCode(rng.range(0x20, 0x7e))],
      [1, () => String.fromCharCode(rng.range(0, 0x1f))],
      [2, () => String.fromCharCode(rng.range(0xa0, 0xd7ff))],
      [1, () => String.fromCodePoint(rng.range(0x1f300, 0x1faff))],
      [1, () => rng.pick(["@", "#", ":", "<", ">", "&", "[", "]", "%", "\\", '"', "'"])],
    ])();
  }
  return out;
}

/** A long string (up to `max` characters) of one repeated unit. */
export function hugeString(rng: Rng, max = 2 * 1024 * 1024): string {
  const unit = rng.pick(["a", "@a ", "#t ", "<a>", "é", "🐦", "https://x.y/ ", " ", "\n", ":e: "]);
  const length = rng.weighted([[4, rng.range(1000, 70_000)], [1, rng.range(70_000, max)]]);
  return unit.repeat(Math.max(1, Math.floor(length / unit.length)));
}

/** A string-ish leaf value: awkward, random, a real id, an own URL, or a number as text. */
export function leafString(rng: Rng, ctx: GenContext): string {
  return rng.weighted<() => string>([
    [4, () => rng.pick(AWKWARD_STRINGS)],
    [4, () => randomString(rng)],
    [3, () => realId(rng, ctx) ?? "1"],
    [1, () => `${ctx.origin}/users/${rng.pick(ctx.usernames)}`],
    [1, () => `${ctx.origin}/users/${rng.pick(ctx.usernames)}/statuses/${realId(rng, ctx) ?? 1}`],
    [1, () => String(rng.pick(NUMBERS))],
    [1, () => hugeString(rng, 300_000)],
  ])();
}

/** A real id of any kind the fixture made, if it made any. */
export function realId(rng: Rng, ctx: GenContext): string | null {
  const kinds = Object.keys(ctx.ids).filter((k) => ctx.ids[k].length);
  if (!kinds.length) return null;
  return rng.pick(ctx.ids[rng.pick(kinds)]);
}

/** A JSON value: mostly leaves, sometimes the wrong type, bounded depth. */
export function jsonValue(rng: Rng, ctx: GenContext, depth = 0): unknown {
  const leaf = depth >= 4;
  return rng.weighted<() => unknown>([
    [10, () => leafString(rng, ctx)],
    [3, () => rng.pick(NUMBERS)],
    [2, () => rng.chance(0.5)],
    [2, () => null],
    [leaf ? 0 : 3, () => Array.from({ length: rng.int(6) }, () => jsonValue(rng, ctx, depth + 1))],
    [leaf ? 0 : 3, () => jsonObject(rng, ctx, [], depth + 1)],
    [leaf ? 0 : 0.3, () => Array.from({ length: rng.range(1000, 20_000) }, () => rng.int(10))],
  ])();
}

/** A JSON object with some of `fields` and a few other keys. */
export function jsonObject(
  rng: Rng,
  ctx: GenContext,
  fields: string[],
  depth = 0,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = rng.int(7);
  for (let i = 0; i < n; i++) {
    const key = fields.length && rng.chance(0.75) ? rng.pick(fields) : fieldName(rng);
    // defineProperty: a `__proto__` key must be a key, not a prototype.
    Object.defineProperty(out, key, {
      value: jsonValue(rng, ctx, depth),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A key that no handler reads, or a dangerous one. */
export function fieldName(rng: Rng): string {
  return rng.weighted<() => string>([
    [3, () => randomString(rng, 12) || "k"],
    [1, () => rng.pick(["__proto__", "constructor", "prototype", "_json", "_method", "id"])],
    [1, () => rng.pick(["options", "expires_in", "multiple", "hide_totals", "name", "value"])],
  ])();
}
