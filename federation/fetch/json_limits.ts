/**
 * Shape limits for JSON that arrives from other servers (inbox bodies and
 * fetched documents), checked before any JSON-LD processing.
 *
 * JSON-LD expansion is recursive and does work per value, so a hostile
 * document can cost seconds of CPU or overflow the stack long before it is
 * understood: 8,000-deep arrays, 100,000 tags, a context of 1,000 entries.
 * Real ActivityPub documents are a few levels deep, carry at most a few
 * hundred recipients or tags, and use a handful of context entries; the
 * limits below leave a wide margin above that.
 */

/** Nesting of objects and arrays (a Create of a Note with a poll is about 6). */
export const MAX_DEPTH = 64;
/** Entries of one array (tags, recipients, attachments, collection items). */
export const MAX_ARRAY_LENGTH = 1_000;
/** Values in the whole document. */
export const MAX_VALUES = 50_000;
/** Entries of `@context` when it is an array. */
export const MAX_CONTEXT_ENTRIES = 16;
/** Terms defined inline by all of a document's `@context` objects together. */
export const MAX_CONTEXT_TERMS = 512;

/**
 * Returns why `value` is not an acceptable ActivityPub document, or null when
 * it is: it must be a JSON object within the limits above, its `@context`,
 * when present, a string, an object or an array of those, and every `id`
 * a string and every `type` a string or an array of strings.
 * Iterative, so no input can exhaust the stack.
 */
export function jsonShapeProblem(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return "the document is not a JSON object";
  }
  const contextProblem = contextShapeProblem((value as Record<string, unknown>)["@context"]);
  if (contextProblem) return contextProblem;
  const stack: [unknown, number][] = [[value, 1]];
  let count = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (++count > MAX_VALUES) return `more than ${MAX_VALUES} values`;
    if (current === null || typeof current !== "object") continue;
    if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
    if (Array.isArray(current)) {
      if (current.length > MAX_ARRAY_LENGTH) return `an array of more than ${MAX_ARRAY_LENGTH}`;
      for (const item of current) stack.push([item, depth + 1]);
    } else {
      for (const key in current) {
        const value = (current as Record<string, unknown>)[key];
        // JSON-LD refuses these deep inside its expansion, with an error
        // that is not a parse error: a 500 unless caught here.
        if ((key === "id" || key === "@id") && typeof value !== "string") {
          return `an ${key} that is not a string`;
        }
        if (
          (key === "type" || key === "@type") && typeof value !== "string" &&
          !(Array.isArray(value) && value.every((item) => typeof item === "string"))
        ) {
          return `a ${key} that is not a string`;
        }
        stack.push([value, depth + 1]);
      }
    }
  }
  return null;
}

function contextShapeProblem(context: unknown): string | null {
  if (context === undefined || typeof context === "string") return null;
  const entries = Array.isArray(context) ? context : [context];
  if (entries.length > MAX_CONTEXT_ENTRIES) {
    return `a @context of more than ${MAX_CONTEXT_ENTRIES} entries`;
  }
  let terms = 0;
  for (const entry of entries) {
    if (typeof entry === "string") continue;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      return "a @context entry that is neither a URL nor an object";
    }
    terms += Object.keys(entry).length;
    if (terms > MAX_CONTEXT_TERMS) {
      return `a @context defining more than ${MAX_CONTEXT_TERMS} terms`;
    }
  }
  return null;
}

/**
 * `value` with every lone UTF-16 surrogate in its strings and keys replaced
 * by U+FFFD and every NUL removed; `value` itself when there is none (the
 * common case). JSON may escape half of a pair (`"\udfff"`, what a peer
 * that cut an emoji in two sends) or a NUL (`"\u0000"`), and JSON.parse
 * accepts both, but PostgreSQL refuses them in `jsonb` and `text`, so the
 * queued activity or stored document failed with a 500. Repairing them keeps
 * the post. Call it after {@link jsonShapeProblem}, which bounds the depth
 * of the recursion.
 */
export function wellFormedJson(value: unknown): unknown {
  return isClean(value) ? value : repair(value);
}

function isCleanString(text: string): boolean {
  return text.isWellFormed() && !text.includes("\0");
}

function cleanString(text: string): string {
  return text.toWellFormed().replaceAll("\0", "");
}

function isClean(value: unknown): boolean {
  if (typeof value === "string") return isCleanString(value);
  if (value === null || typeof value !== "object") return true;
  if (Array.isArray(value)) return value.every(isClean);
  for (const key in value) {
    if (!isCleanString(key) || !isClean((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

function repair(value: unknown): unknown {
  if (typeof value === "string") return cleanString(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(repair);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[cleanString(key)] = repair(item);
  return copy;
}
