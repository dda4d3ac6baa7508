/**
 * Request bodies for the fuzzer. Each generator takes the input's own PRNG
 * and returns the exact bytes and content type to send, with a short name of
 * its shape for the report. Deep values are written as text (the fuzzer's
 * own JSON.stringify would overflow its stack on them).
 */
import type { Rng } from "./prng.ts";
import type { FuzzRoute } from "./routes.ts";
import {
  fieldName,
  type GenContext,
  hugeString,
  jsonObject,
  jsonValue,
  leafString,
  randomString,
} from "./values.ts";

/** One generated body. */
export interface FuzzBody {
  /** The generator's name (for the report). */
  shape: string;
  /** Content-Type header, or null for none. */
  contentType: string | null;
  body: Uint8Array<ArrayBuffer> | null;
}

const encoder = new TextEncoder();

function text(shape: string, contentType: string | null, body: string): FuzzBody {
  return { shape, contentType, body: encoder.encode(body) };
}

const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/activity+json",
  'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
];

/** A deeply nested JSON text: arrays, objects or a mix, `depth` levels. */
function deepJson(rng: Rng, depth: number): string {
  switch (rng.int(3)) {
    case 0:
      return "[".repeat(depth) + "1" + "]".repeat(depth);
    case 1:
      return '{"a":'.repeat(depth) + "null" + "}".repeat(depth);
    default:
      return '[{"a":'.repeat(depth) + "[]" + "}]".repeat(depth);
  }
}

/** A Rails-style key: `a`, `a[]`, `a[b][]`, `a[0][name]`, `a[][b]`, or a broken bracket. */
function railsKey(rng: Rng, fields: string[]): string {
  const head = fields.length && rng.chance(0.8) ? rng.pick(fields) : fieldName(rng);
  const segments = rng.int(4);
  let key = head;
  for (let i = 0; i < segments; i++) {
    key += rng.pick([
      "[]",
      "[]",
      `[${rng.int(5)}]`,
      `[${rng.pick(["name", "value", "options", "expires_in", "multiple", "last_read_id"])}]`,
      `[${randomString(rng, 6)}]`,
      "[",
      "]",
      "[[]]",
      "[__proto__]",
    ]);
  }
  return key;
}

/** Percent-encodes the UTF-8 of `s` (lone surrogates become U+FFFD, as a browser sends them). */
function percentEncode(s: string): string {
  let out = "";
  for (const byte of encoder.encode(s)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function formEncode(pairs: [string, string][], rng: Rng): string {
  return pairs.map(([k, v]) => {
    // Some clients leave brackets unencoded; some values carry raw percent junk.
    const key = rng.chance(0.5) ? percentEncode(k) : k.replace(/[&=#\s]/g, "_");
    const value = rng.chance(0.1)
      ? rng.pick(["%", "%zz", "%E9", "%C3", "%ED%A0%80", "%00", "+%2B+", "%FF%FE"])
      : percentEncode(v);
    return `${key}=${value}`;
  }).join("&");
}

function formPairs(rng: Rng, ctx: GenContext, fields: string[], n: number): [string, string][] {
  return Array.from({ length: n }, () => [railsKey(rng, fields), leafString(rng, ctx)]);
}

const PNG_1X1 = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

function fileBytes(rng: Rng): { bytes: Uint8Array; type: string; name: string } {
  const name = rng.pick([
    "a.png",
    "../../etc/passwd",
    "x\0.png",
    "",
    "é.png",
    "a".repeat(500) + ".jpg",
    "file",
    "image.svg",
  ]);
  return rng.weighted<() => { bytes: Uint8Array; type: string; name: string }>([
    [2, () => ({ bytes: PNG_1X1, type: "image/png", name })],
    [
      2,
      () => ({
        bytes: rng.bytes(rng.int(2000)),
        type: rng.pick(["image/png", "image/jpeg", "video/mp4", "application/octet-stream", ""]),
        name,
      }),
    ],
    [1, () => ({ bytes: PNG_1X1.slice(0, rng.int(PNG_1X1.length)), type: "image/png", name })],
    [
      1,
      () => ({
        bytes: encoder.encode('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
        type: "image/png",
        name,
      }),
    ],
    [
      1,
      () => ({
        bytes: encoder.encode("<html><script>alert(1)</script></html>"),
        type: "image/gif",
        name,
      }),
    ],
    [1, () => ({ bytes: new Uint8Array(0), type: "image/png", name })],
  ])();
}

function concat(parts: (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const chunks = parts.map((p) => typeof p === "string" ? encoder.encode(p) : p);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

function multipart(rng: Rng, ctx: GenContext, fields: string[]): FuzzBody {
  const boundary = `fuzz${rng.int(1e9)}`;
  const parts: (string | Uint8Array)[] = [];
  const n = rng.range(0, 6);
  for (let i = 0; i < n; i++) {
    const name = railsKey(rng, fields).replace(/"/g, "'");
    parts.push(`--${boundary}\r\n`);
    if (rng.chance(0.3)) {
      const file = fileBytes(rng);
      parts.push(
        `Content-Disposition: form-data; name="${name}"; filename="${file.name}"\r\n`,
        file.type ? `Content-Type: ${file.type}\r\n\r\n` : "\r\n",
        file.bytes,
        "\r\n",
      );
    } else {
      parts.push(
        `Content-Disposition: form-data; name="${name}"\r\n\r\n`,
        leafString(rng, ctx),
        "\r\n",
      );
    }
  }
  const broken = rng.chance(0.15);
  if (!broken) parts.push(`--${boundary}--\r\n`);
  const type = rng.weighted([
    [8, `multipart/form-data; boundary=${boundary}`],
    [1, "multipart/form-data"],
    [1, `multipart/form-data; boundary="${boundary}x"`],
  ]);
  return {
    shape: broken ? "multipart-truncated" : "multipart",
    contentType: type,
    body: concat(parts),
  };
}

/** An ActivityStreams-looking body with hostile fields, for the inboxes. */
function activity(rng: Rng, ctx: GenContext, fields: string[]): FuzzBody {
  const actor = `${ctx.origin}/users/${rng.pick(ctx.usernames)}`;
  const base: Record<string, unknown> = {
    "@context": rng.weighted<unknown>([
      [4, "https://www.w3.org/ns/activitystreams"],
      [1, ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"]],
      [1, "https://example.invalid/context.jsonld"],
      [1, { "@vocab": "https://example.com/#" }],
      [1, jsonValue(rng, ctx)],
    ]),
    id: rng.chance(0.7) ? `${actor}#fuzz-${rng.int(1e9)}` : jsonValue(rng, ctx),
    type: rng.pick([
      "Create",
      "Update",
      "Delete",
      "Follow",
      "Accept",
      "Reject",
      "Undo",
      "Like",
      "Announce",
      "Block",
      "Add",
      "Remove",
      "Move",
      "Flag",
      "EmojiReact",
      "FeatureRequest",
      "Note",
      "Nonsense",
    ]),
    actor: rng.chance(0.7) ? actor : jsonValue(rng, ctx),
    object: rng.weighted<unknown>([
      [2, actor],
      [2, {
        type: "Note",
        id: `${actor}/notes/${rng.int(1e9)}`,
        content: leafString(rng, ctx),
        attributedTo: actor,
        to: "https://www.w3.org/ns/activitystreams#Public",
      }],
      [1, {
        type: rng.pick(["FeaturedCollection", "FeaturedItem", "FeatureAuthorization"]),
        id: `${actor}/collections/${rng.int(1e9)}`,
        attributedTo: actor,
        orderedItems: jsonValue(rng, ctx),
      }],
      [2, jsonValue(rng, ctx)],
    ]),
  };
  Object.assign(base, jsonObject(rng, ctx, fields));
  return text("activity", rng.pick(JSON_TYPES), JSON.stringify(base));
}

type Generator = (rng: Rng, ctx: GenContext, route: FuzzRoute) => FuzzBody;

/** Every body shape and its weight. */
const GENERATORS: [number, Generator][] = [
  [
    20,
    (rng, ctx, r) =>
      text("json", rng.pick(JSON_TYPES), JSON.stringify(jsonObject(rng, ctx, r.fields))),
  ],
  [
    4,
    (rng, ctx) =>
      text("json-scalar", "application/json", JSON.stringify(jsonValue(rng, ctx)) ?? "null"),
  ],
  [4, (rng, _ctx, r) => {
    const key = JSON.stringify(r.fields.length ? rng.pick(r.fields) : "a");
    const deep = deepJson(
      rng,
      rng.weighted([[1, rng.range(9, 100)], [2, rng.range(1000, 20_000)]]),
    );
    return text("json-deep", rng.pick(JSON_TYPES), rng.chance(0.5) ? `{${key}:${deep}}` : deep);
  }],
  [3, (rng, _ctx, r) => {
    const key = r.fields.length ? rng.pick(r.fields) : "a";
    const n = rng.range(10_000, 200_000);
    const item = rng.pick(['"1"', "1", "null", "{}", "[]", '"a"']);
    return text(
      "json-huge-array",
      "application/json",
      `{${JSON.stringify(key)}:[${Array(n).fill(item).join(",")}]}`,
    );
  }],
  [3, (rng, ctx, r) => {
    const key = r.fields.length ? rng.pick(r.fields) : "a";
    const obj = jsonObject(rng, ctx, r.fields);
    Object.defineProperty(obj, key, { value: hugeString(rng), enumerable: true });
    return text("json-huge-string", "application/json", JSON.stringify(obj));
  }],
  [3, (rng, ctx, r) => {
    const good = JSON.stringify(jsonObject(rng, ctx, r.fields));
    const bad = rng.pick([
      good.slice(0, rng.int(good.length)),
      good + rng.pick(["}", ",", "x", "\0"]),
      good.replaceAll('"', "'"),
      "{,}",
      '{"a":NaN}',
      '{"a":1,}',
      "\ufeff" + good,
      '{"a":"\\ud800"}',
      '{"a":"\\u0000"}',
      '{"a":1e999999}',
      good.replace(":", ":".repeat(2)),
    ]);
    return text("json-malformed", "application/json", bad);
  }],
  [
    14,
    (rng, ctx, r) =>
      text(
        "form",
        "application/x-www-form-urlencoded",
        formEncode(formPairs(rng, ctx, r.fields, rng.int(10)), rng),
      ),
  ],
  [3, (rng, _ctx, r) => {
    const head = r.fields.length ? rng.pick(r.fields) : "a";
    const n = rng.range(10, 5000);
    const key = head + rng.pick(["[a]", "[]", "[0]"]).repeat(n);
    return text(
      "form-deep-key",
      "application/x-www-form-urlencoded",
      `${percentEncode(key)}=1`,
    );
  }],
  [2, (rng, ctx, r) => {
    const head = r.fields.length ? rng.pick(r.fields) : "a";
    const n = rng.range(1000, 30_000);
    const pairs: [string, string][] = [];
    for (let i = 0; i < n; i++) {
      pairs.push([
        rng.chance(0.5) ? `${head}[]` : `${head}[${i}]`,
        rng.chance(0.5) ? leafString(rng, ctx).slice(0, 20) : String(i),
      ]);
    }
    return text("form-many", "application/x-www-form-urlencoded", formEncode(pairs, rng));
  }],
  [10, (rng, ctx, r) => multipart(rng, ctx, r.fields)],
  [4, (rng) => {
    const bytes = rng.bytes(rng.weighted([[5, rng.int(300)], [1, rng.range(300, 200_000)]]));
    // Often a JSON or form prefix, so the invalid bytes land inside a value.
    const prefix = rng.pick(["", '{"status":"', "status=", '{"a":["']);
    const type = rng.pick([
      ...JSON_TYPES.slice(0, 2),
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]);
    return { shape: "invalid-utf8", contentType: type, body: concat([prefix, bytes]) };
  }],
  [3, (rng) => ({
    shape: "empty",
    contentType: rng.pick([
      null,
      "application/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/activity+json",
    ]),
    body: rng.chance(0.5) ? null : new Uint8Array(0),
  })],
  [5, (rng, ctx, r) => {
    const json = JSON.stringify(jsonObject(rng, ctx, r.fields));
    const form = formEncode(formPairs(rng, ctx, r.fields, rng.int(6)), rng);
    const [body, type] = rng.pick(
      [
        [json, "application/x-www-form-urlencoded"],
        [json, "text/plain"],
        [json, "multipart/form-data; boundary=fuzz"],
        [form, "application/json"],
        [form, "application/activity+json"],
        [json, "application/xml"],
        [json, "application/json; charset=utf-16"],
        [json, "application/json; boundary=;;;"],
        [json, "*/*"],
        [json, "application/"],
        [json, ""],
        [form, "application/x-www-form-urlencoded; charset=iso-8859-1"],
      ] as const,
    );
    return text("wrong-content-type", type || null, body);
  }],
];

const INBOX_GENERATORS: [number, Generator][] = [
  [30, (rng, ctx, r) => activity(rng, ctx, r.fields)],
  ...GENERATORS,
];

/** Generates one body for `route` from the input's PRNG. */
export function generateBody(rng: Rng, ctx: GenContext, route: FuzzRoute): FuzzBody {
  const table = route.kind === "inbox" ? INBOX_GENERATORS : GENERATORS;
  return rng.weighted(table.map(([w, g]) => [w, g] as const))(rng, ctx, route);
}
