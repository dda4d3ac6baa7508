/**
 * Inline `@context` definitions that JSON-LD refuses, removed before Fedify
 * processes a document.
 *
 * Some servers send contexts that are not valid JSON-LD; Pixelfed, for one,
 * defines `"capabilities": {"announce": {"@type": "@id"}, …}`, a term
 * definition with non-keyword keys, and JSON-LD then rejects the whole
 * document ("a term definition must not contain announce"), so its posts
 * could not be read at all. Mastodon reads the raw JSON and never notices.
 * Here such a definition is dropped, which leaves the term undefined (as if
 * the sender had not defined it): what Fedify then loses is read from the
 * raw JSON (federation/dialects/terms.ts), like any undefined term.
 *
 * Only inline definitions are touched; a document without any bad one is
 * returned as it is (the same object), so a signed body stays byte-equal.
 */
import { isJson, type Json } from "./terms.ts";

/** The keys a JSON-LD 1.1 expanded term definition may hold. */
const DEFINITION_KEYS = new Set([
  "@id",
  "@reverse",
  "@type",
  "@language",
  "@container",
  "@context",
  "@prefix",
  "@propagate",
  "@protected",
  "@index",
  "@direction",
  "@nest",
]);

/** Whether a term definition (the value of a term in an inline context) is acceptable. */
function validDefinition(term: string, value: unknown): boolean {
  if (term.startsWith("@")) return true; // @vocab, @base, @language…: JSON-LD checks them.
  if (value === null || typeof value === "string") return true;
  if (!isJson(value)) return false;
  return Object.keys(value).every((key) => DEFINITION_KEYS.has(key));
}

/** One `@context` value with its bad definitions removed; the same value when none. */
function repairContext(context: unknown): unknown {
  if (Array.isArray(context)) {
    const repaired = context.map(repairContext);
    return repaired.some((entry, i) => entry !== context[i]) ? repaired : context;
  }
  if (!isJson(context)) return context;
  const bad = Object.entries(context).filter(([term, value]) => !validDefinition(term, value));
  if (bad.length === 0) return context;
  const copy: Json = { ...context };
  for (const [term] of bad) delete copy[term];
  return copy;
}

/**
 * `document` with every inline `@context` (at any depth) rid of term
 * definitions JSON-LD would refuse; `document` itself when there is none.
 * Call it after json_limits.ts has bounded the document's depth.
 */
export function withValidContexts(document: unknown): unknown {
  if (Array.isArray(document)) {
    const repaired = document.map(withValidContexts);
    return repaired.some((item, i) => item !== document[i]) ? repaired : document;
  }
  if (!isJson(document)) return document;
  let copy: Json | null = null;
  for (const [key, value] of Object.entries(document)) {
    const repaired = key === "@context" ? repairContext(value) : withValidContexts(value);
    if (repaired !== value) {
      copy ??= { ...document };
      copy[key] = repaired;
    }
  }
  return copy ?? document;
}
