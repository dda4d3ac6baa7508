/**
 * The one request parser: query string plus body (JSON, urlencoded or
 * multipart), with Rails-style keys turned into nested objects and arrays,
 * exactly as Mastodon's clients expect them to be understood:
 *
 * - `media_ids[]=1&media_ids[]=2` → `{ media_ids: ["1", "2"] }`
 * - `poll[options][]=a` → `{ poll: { options: ["a"] } }`
 * - `fields_attributes[0][name]=x` → `{ fields_attributes: { "0": { name: "x" } } }`
 *   (Rails keeps index keys as a hash; {@link readList} reads either form)
 * - `a[][b]=1&a[][c]=2&a[][b]=3` → `{ a: [{ b: "1", c: "2" }, { b: "3" }] }`
 *
 * Decisions, following Rails/Rack where it has one:
 * - Malformed JSON or multipart → 400. A body over `config.limits.maxBodyBytes` → 413.
 * - A body with a content type we do not parse (text/plain, none at all) is
 *   ignored, as Rails ignores it: only the query string counts.
 * - A JSON body that is not an object is exposed as `_json`, as Rails does.
 * - JSON integers past 2^53 (18-digit ids sent as numbers, as Mastodon.py
 *   does) are kept as their exact decimal text, never rounded to a double.
 * - A multipart file part with an empty filename (a file input left empty)
 *   is no parameter at all, as Rack drops it.
 * - `__proto__`, `constructor` and `prototype` keys are dropped everywhere.
 * - Structure is bounded: nesting depth 8, 1,000 keys, 10,000 array items; past
 *   them → 400 (Rack answers 400 for its own nesting and key-space limits).
 * - Conflicting shapes (`a=1&a[b]=2`) → 400, as Rack's ParameterTypeError.
 * - Query and body are merged shallowly and the body wins, like Rails' params.
 */
import type { Context } from "hono";
import { ApiError } from "./errors.ts";
import type { ApiEnv } from "./env.ts";

/** A parsed parameter value. */
export type ParamValue = string | number | boolean | null | File | ParamValue[] | Params;
/** A parsed parameter object. */
export interface Params {
  [key: string]: ParamValue;
}

/** Bounds on the parsed structure. */
export const PARAM_LIMITS = {
  depth: 8,
  keys: 1_000,
  arrayItems: 10_000,
} as const;

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * The merged query and body parameters of a request (body wins), parsed once
 * and cached for the rest of the request. Throws {@link ApiError} 400/413.
 * `maxBodyBytes` lowers the configured limit for a route that takes less
 * (the CSV import); the first call of a request reads the body, so such a
 * route asks before anything else does.
 */
export function params(
  c: Context<ApiEnv>,
  options: { maxBodyBytes?: number } = {},
): Promise<Params> {
  let parsed = c.get("params");
  if (!parsed) {
    const configured = c.get("ctx")?.config.limits.maxBodyBytes ?? 110 * 1024 * 1024;
    const maxBytes = Math.min(configured, options.maxBodyBytes ?? configured);
    parsed = parseRequest(c.req.raw, maxBytes);
    c.set("params", parsed);
  }
  return parsed;
}

/** Parses a request's query string and body; the body wins on conflicts. */
export async function parseRequest(request: Request, maxBodyBytes: number): Promise<Params> {
  const query = parseQueryString(new URL(request.url).search);
  const body = await parseBody(request, maxBodyBytes);
  return { ...query, ...body };
}

/** Parses a query string (with or without the leading `?`) with Rails-style keys. */
export function parseQueryString(search: string): Params {
  return buildParams(formEntries(search.startsWith("?") ? search.slice(1) : search));
}

/**
 * The `[name, value]` pairs of an urlencoded string, as URLSearchParams
 * decodes them, but one at a time: buildParams stops at its key limit, so a
 * megabyte of `a[]=1&…` is refused after 1,000 pairs instead of being
 * decoded whole first (URLSearchParams took ~1 s on 700 KB of pairs).
 */
export function* formEntries(text: string): Generator<[string, string]> {
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end === -1) end = text.length;
    if (end > start) {
      const pair = text.slice(start, end);
      const eq = pair.indexOf("=");
      yield eq === -1
        ? [formDecode(pair), ""]
        : [formDecode(pair.slice(0, eq)), formDecode(pair.slice(eq + 1))];
    }
    start = end + 1;
  }
}

const utf8 = new TextEncoder();
const utf8Lenient = new TextDecoder();

/** application/x-www-form-urlencoded decoding: `+` is a space, bad escapes stay, bad UTF-8 → U+FFFD. */
function formDecode(raw: string): string {
  const text = raw.includes("+") ? raw.replaceAll("+", " ") : raw;
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray `%` or bytes that are not UTF-8: decode byte by byte as the URL standard does.
    const bytes = utf8.encode(text);
    const out = new Uint8Array(bytes.length);
    let n = 0;
    for (let i = 0; i < bytes.length; i++) {
      const hex = bytes[i] === 0x25 && i + 2 < bytes.length
        ? String.fromCharCode(bytes[i + 1], bytes[i + 2])
        : "";
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        out[n++] = parseInt(hex, 16);
        i += 2;
      } else {
        out[n++] = bytes[i];
      }
    }
    return utf8Lenient.decode(out.subarray(0, n));
  }
}

/** Parses a body according to its content type; unknown types give `{}`. */
export async function parseBody(request: Request, maxBodyBytes: number): Promise<Params> {
  if (request.method === "GET" || request.method === "HEAD" || !request.body) return {};
  const type = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const isJson = type === "application/json" || type.endsWith("+json");
  const isForm = type === "application/x-www-form-urlencoded";
  const isMultipart = type === "multipart/form-data";
  if (!isJson && !isForm && !isMultipart) {
    // Rails ignores bodies it has no parser for; drain nothing, answer nothing.
    return {};
  }
  const bytes = await readLimited(request, maxBodyBytes);
  if (isJson) return parseJsonBody(bytes);
  if (isForm) return buildParams(formEntries(new TextDecoder().decode(bytes)));
  let form: FormData;
  try {
    form = await new Response(bytes, {
      headers: { "content-type": request.headers.get("content-type")! },
    }).formData();
  } catch {
    throw new ApiError(400, "Error while parsing request: malformed multipart body");
  }
  return buildParams(withoutEmptyFileFields(form.entries()));
}

/**
 * The multipart entries without the file parts whose filename is empty:
 * that is how a browser or an app sends a file field left empty (Rack skips
 * them: "no file has been selected"), so an empty `avatar` or `thumbnail`
 * means no change rather than an invalid upload.
 */
function* withoutEmptyFileFields(
  entries: Iterable<[string, FormDataEntryValue]>,
): Generator<[string, FormDataEntryValue]> {
  for (const entry of entries) {
    if (!(entry[1] instanceof File && entry[1].name === "")) yield entry;
  }
}

/** Reads the whole body, refusing (413) past the limit without buffering more. */
export async function readLimited(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(400, "Error while parsing request: the body could not be read");
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

function tooLarge(): ApiError {
  return new ApiError(413, "Request entity too large");
}

/**
 * JSON.parse, but an integer too large for a double is kept as its exact
 * decimal text (the reviver sees the number's source): 113456789012345678
 * would otherwise become 113456789012345680, another status's id. Also read
 * by the streaming socket for its subscribe messages (a list id as a number).
 */
export function parseJsonExact(text: string): unknown {
  return JSON.parse(text, exactIntegers);
}

function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== "number" || Number.isSafeInteger(value)) return value;
  const source = context?.source;
  return source !== undefined && /^-?\d+$/.test(source) ? source : value;
}

function parseJsonBody(bytes: Uint8Array): Params {
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = parseJsonExact(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "invalid JSON";
    throw new ApiError(400, `Error while parsing request: ${reason}`);
  }
  const budget = { keys: 0, items: 0 };
  const clean = sanitizeJson(value, 0, budget);
  if (clean !== null && typeof clean === "object" && !Array.isArray(clean)) {
    return clean as Params;
  }
  return { _json: clean };
}

/** Copies a JSON value, dropping dangerous keys and enforcing the bounds. */
function sanitizeJson(value: unknown, depth: number, budget: Budget): ParamValue {
  if (typeof value === "string") return rejectNul(value);
  if (value === null || typeof value !== "object") return value as ParamValue;
  if (depth >= PARAM_LIMITS.depth) throw tooDeep();
  if (Array.isArray(value)) {
    budget.items += value.length;
    if (budget.items > PARAM_LIMITS.arrayItems) throw tooMany();
    return value.map((v) => sanitizeJson(v, depth + 1, budget));
  }
  const out: Params = {};
  for (const [k, v] of Object.entries(value)) {
    if (FORBIDDEN_KEYS.has(k)) continue;
    if (++budget.keys > PARAM_LIMITS.keys) throw tooMany();
    out[rejectNul(k)] = sanitizeJson(v, depth + 1, budget);
  }
  return out;
}

interface Budget {
  keys: number;
  items: number;
}

/**
 * PostgreSQL text cannot hold NUL, and no legitimate parameter contains one:
 * refuse it here (400, as Rack does) rather than fail later in a query.
 */
function rejectNul(text: string): string {
  if (text.includes("\0")) throw new ApiError(400, "Invalid parameters: null byte");
  return text;
}

function tooDeep(): ApiError {
  return new ApiError(400, "Parameters are nested too deeply");
}

function tooMany(): ApiError {
  return new ApiError(400, "Too many parameters");
}

function typeConflict(key: string): ApiError {
  return new ApiError(400, `Invalid parameters: conflicting types for parameter ${key}`);
}

/** Builds nested params from flat `[name, value]` pairs with Rails-style names. */
export function buildParams(entries: Iterable<[string, string | File]>): Params {
  const root: Params = {};
  const budget = { keys: 0, items: 0 };
  for (const [name, value] of entries) {
    if (++budget.keys > PARAM_LIMITS.keys) throw tooMany();
    rejectNul(name);
    if (typeof value === "string") rejectNul(value);
    const segments = splitKey(name);
    if (!segments) continue;
    if (segments.length > PARAM_LIMITS.depth) throw tooDeep();
    if (segments.some((s) => FORBIDDEN_KEYS.has(s))) continue;
    assign(root, segments, value, budget, name);
  }
  return root;
}

/**
 * `a[b][]` → `["a", "b", ""]`; `""` stands for `[]` (append). A name whose
 * brackets do not parse is kept whole as a flat key, as Rack mostly does.
 */
function splitKey(name: string): string[] | null {
  const open = name.indexOf("[");
  if (open === -1) return name === "" ? null : [name];
  const head = name.slice(0, open);
  if (head === "") return null;
  const segments = [head];
  const re = /\[([^[\]]*)\]/y;
  re.lastIndex = open;
  let match: RegExpExecArray | null;
  while ((match = re.exec(name)) !== null) {
    segments.push(match[1]);
    if (re.lastIndex === name.length) return segments;
  }
  return [name];
}

function isParams(value: unknown): value is Params {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    !(value instanceof File);
}

/** Whether `obj` already has the (hash) path `segments`, as Rack checks for `a[][b]`. */
function hasPath(obj: Params, segments: string[]): boolean {
  let cur: ParamValue = obj;
  for (const s of segments) {
    if (s === "" || !isParams(cur) || !Object.hasOwn(cur, s)) return false;
    cur = cur[s];
  }
  return true;
}

function assign(
  target: Params,
  segments: string[],
  value: string | File,
  budget: Budget,
  name: string,
): void {
  const [key, ...rest] = segments;
  if (rest.length === 0) {
    target[key] = value;
    return;
  }
  if (rest[0] === "") {
    const existing = Object.hasOwn(target, key) ? target[key] : undefined;
    if (existing !== undefined && !Array.isArray(existing)) throw typeConflict(name);
    const list: ParamValue[] = existing ?? (target[key] = []);
    if (++budget.items > PARAM_LIMITS.arrayItems) throw tooMany();
    const child = rest.slice(1);
    if (child.length === 0) {
      list.push(value);
      return;
    }
    if (child[0] === "") throw typeConflict(name); // `a[][]` has no Rails meaning
    const last = list[list.length - 1];
    if (isParams(last) && !hasPath(last, child)) {
      assign(last, child, value, budget, name);
    } else {
      const fresh: Params = {};
      assign(fresh, child, value, budget, name);
      list.push(fresh);
    }
    return;
  }
  const existing = Object.hasOwn(target, key) ? target[key] : undefined;
  if (existing !== undefined && !isParams(existing)) throw typeConflict(name);
  const obj: Params = existing ?? (target[key] = {});
  assign(obj, rest, value, budget, name);
}
