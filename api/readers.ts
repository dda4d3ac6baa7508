/**
 * Typed readers over parsed {@link Params}, for route code. Each returns
 * `undefined` when the parameter is absent (or blank, as Rails treats blank
 * form values) and throws a 422 "Validation failed: …" when it has the wrong
 * shape, so a route never has to guess what a client sent.
 */
import { validationFailed } from "./errors.ts";
import type { Params, ParamValue } from "./params.ts";

/** Rails' humanized attribute name: `media_ids` → `Media ids`. */
export function humanizeKey(key: string): string {
  const s = key.replace(/_id$/, "").replaceAll("_", " ").replace(/\[|\]/g, " ").trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function invalid(key: string, reason = "is invalid") {
  return validationFailed(`${humanizeKey(key)} ${reason}`);
}

function isObject(value: ParamValue | undefined): value is Params {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    !(value instanceof File);
}

/**
 * A string parameter. Numbers and booleans from JSON bodies are accepted and
 * stringified (Mastodon calls `to_s` on them); objects, arrays and files are not.
 */
export function readString(
  p: Params,
  key: string,
  options: { maxLength?: number; allowBlank?: boolean } = {},
): string | undefined {
  const value = p[key];
  if (value === undefined || value === null) return undefined;
  let s: string;
  if (typeof value === "string") s = value;
  else if (typeof value === "number" && Number.isFinite(value)) s = String(value);
  else if (typeof value === "boolean") s = String(value);
  else throw invalid(key);
  if (s === "" && !options.allowBlank) return undefined;
  if (options.maxLength != null && [...s].length > options.maxLength) {
    throw invalid(key, `is too long (maximum is ${options.maxLength} characters)`);
  }
  return s;
}

/** Values Rails' boolean type casts to false; everything else non-blank is true. */
const FALSE_VALUES = new Set(["0", "f", "false", "off"]);

/**
 * A boolean with Rails' truthiness: `false`, `0`, `"0"`, `"f"`, `"false"`,
 * `"off"` (any case) are false, blank is absent, any other scalar is true.
 */
export function readBoolean(p: Params, key: string): boolean | undefined {
  const value = p[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0;
  if (typeof value === "string") return !FALSE_VALUES.has(value.trim().toLowerCase());
  throw invalid(key);
}

/** An integer, from a JSON number or a decimal string, optionally bounded. */
export function readInt(
  p: Params,
  key: string,
  options: { min?: number; max?: number } = {},
): number | undefined {
  const value = p[key];
  if (value === undefined || value === null || value === "") return undefined;
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value)) n = Number(value);
  else if (typeof value === "string" || typeof value === "boolean") {
    throw invalid(key, "is not a number");
  } else throw invalid(key);
  if (!Number.isSafeInteger(n)) throw invalid(key, "must be an integer");
  if (options.min != null && n < options.min) {
    throw invalid(key, `must be greater than or equal to ${options.min}`);
  }
  if (options.max != null && n > options.max) {
    throw invalid(key, `must be less than or equal to ${options.max}`);
  }
  return n;
}

/**
 * An array of strings. A lone string counts as a one-item array and an
 * index-keyed object (`ids[0]=a&ids[1]=b`) as the array of its values.
 */
export function readStringArray(
  p: Params,
  key: string,
  options: { maxItems?: number } = {},
): string[] | undefined {
  const value = p[key];
  if (value === undefined || value === null) return undefined;
  let items: ParamValue[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === "string") items = value === "" ? [] : [value];
  else if (isObject(value)) {
    items = indexedValues(value) ?? (() => {
      throw invalid(key);
    })();
  } else throw invalid(key);
  const out = items.map((item) => {
    if (typeof item === "string") return item;
    if (typeof item === "number" && Number.isFinite(item)) return String(item);
    throw invalid(key);
  }).filter((s) => s !== "");
  if (options.maxItems != null && out.length > options.maxItems) {
    throw invalid(key, `has too many items (maximum is ${options.maxItems})`);
  }
  return out;
}

/** A nested object (`data[alerts][mention]` → `readObject(p, "data")`). */
export function readObject(p: Params, key: string): Params | undefined {
  const value = p[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (isObject(value)) return value;
  throw invalid(key);
}

/**
 * An optional hash parameter read as Rails' strong parameters permit it
 * (`params.permit(source: [...])`): a value that is not a hash (a scalar
 * such as `fields_attributes=undefined`, which one client library sends for
 * an unset option, or an array) is dropped, not refused. Use it for the
 * optional hashes Mastodon permits; {@link readObject} stays strict for
 * hashes a route cannot do without.
 */
export function readPermittedObject(p: Params, key: string): Params | undefined {
  const value = p[key];
  return isObject(value) ? value : undefined;
}

/**
 * {@link readObjectList} with strong parameters' leniency: a scalar is
 * dropped (the list is absent), and so are the items that are not hashes.
 */
export function readPermittedObjectList(p: Params, key: string): Params[] | undefined {
  const value = p[key];
  const items = Array.isArray(value) ? value : isObject(value) ? indexedValues(value) : null;
  return items ? items.filter(isObject) : undefined;
}

/**
 * A list of objects given either as an array (JSON, `a[][name]=…`) or as an
 * index-keyed hash (`fields_attributes[0][name]=…`), in index order.
 */
export function readObjectList(p: Params, key: string): Params[] | undefined {
  const value = p[key];
  if (value === undefined || value === null || value === "") return undefined;
  const items = Array.isArray(value) ? value : isObject(value) ? indexedValues(value) : null;
  if (!items || !items.every(isObject)) throw invalid(key);
  return items as Params[];
}

/** An uploaded file (multipart only). */
export function readFile(p: Params, key: string): File | undefined {
  const value = p[key];
  if (value === undefined || value === null || value === "") return undefined;
  if (value instanceof File) return value;
  throw invalid(key);
}

/** Values of an object whose keys are all non-negative integers, in numeric order. */
function indexedValues(obj: Params): ParamValue[] | null {
  const keys = Object.keys(obj);
  if (!keys.every((k) => /^\d+$/.test(k))) return null;
  return keys.sort((a, b) => Number(a) - Number(b)).map((k) => obj[k]);
}
