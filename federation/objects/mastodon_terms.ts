/**
 * What every peer expects and Fedify's vocabulary cannot say: on a Note,
 * `contentMap`/`summaryMap` keyed by the status language, and the
 * attachments' `blurhash` and `focalPoint` (Mastodon's extension terms),
 * with the `@context` defining them as Mastodon's own context does; on
 * every document, Mastodon's shape (lists as arrays, the public collection
 * in full: federation/objects/wire_shape.ts).
 *
 * Both are applied to the compacted JSON inside `toJsonLd`, by subclasses
 * of the vocabulary classes (the wire classes: Note, Question, and the
 * Create/Update that carry them; {@link wireActivity} makes any other
 * activity one when it is sent). Fedify signs and sends what `toJsonLd`
 * returns (the object integrity proof, the LD signature and the body are
 * all computed from it), and its `clone` keeps the subclass, so the added
 * terms and the shape are covered by every signature. An expanded
 * serialization (Fedify's intermediate step) is left alone: only the final
 * compact document carries them.
 */
import type { Context } from "@fedify/fedify";
import {
  type Activity,
  Create,
  Note,
  type Object as APObject,
  Person,
  Question,
  Service,
  Update,
} from "@fedify/vocab";
import { shapeForPeers } from "./wire_shape.ts";

/** The terms of one local Note, keyed in {@link MastodonTerms} by the Note's id. */
export interface NoteTerms {
  /** ISO 639 code of the status; null when unknown (then no maps). */
  language: string | null;
  content: string;
  summary: string | null;
  /** Per attachment URL (as the Note's `attachment[].url` gives it). */
  attachments: Map<string, { blurhash: string | null; focalPoint: [number, number] | null }>;
}

/**
 * Members Fedify's class cannot say, merged as they are into one node of
 * the compact document (an actor's FEP-7aa9 terms: federation/dispatchers/actor.ts),
 * with the `@context` definitions of their terms.
 */
export interface NodeExtras {
  members: Json;
  context: Json;
}

/** The context entry Mastodon uses for these terms. */
const TERMS_CONTEXT = {
  toot: "http://joinmastodon.org/ns#",
  blurhash: "toot:blurhash",
  focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
};

/** How deep the JSON is walked for Notes (an activity, its object, a collection's items). */
const MAX_DEPTH = 4;

type Json = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type VocabClass = new (...args: any[]) => APObject;

/** Objects that carry {@link NoteTerms} (or {@link NodeExtras}) for the nodes they are or embed. */
export interface CarriesTerms {
  mastodonTerms: Map<string, NoteTerms | NodeExtras>;
}

function withMastodonTerms<C extends VocabClass>(Base: C) {
  return class extends Base implements CarriesTerms {
    mastodonTerms = new Map<string, NoteTerms | NodeExtras>();

    // deno-lint-ignore no-explicit-any
    override clone(...args: any[]): any {
      // Fedify's clone builds `new this.constructor(…)`: the subclass, without our field.
      const copy = super.clone(...args) as unknown as CarriesTerms;
      copy.mastodonTerms = this.mastodonTerms;
      return copy;
    }

    // deno-lint-ignore no-explicit-any
    override async toJsonLd(options?: any): Promise<unknown> {
      const json = await super.toJsonLd(options);
      if (options?.format === "expand") return json;
      if (!json || typeof json !== "object" || Array.isArray(json)) return json;
      // A new document (shapeForPeers copies): the result may be Fedify's cached one.
      const shaped = shapeForPeers(json as Json);
      return this.mastodonTerms.size ? addTerms(shaped, this.mastodonTerms) : shaped;
    }
  };
}

/**
 * A Fedify activity transformer (federation/mod.ts): the activity as an
 * instance of its wire class, so that what Fedify proves, signs and sends
 * is in Mastodon's shape, whatever the activity.
 */
export function wireActivity<T>(activity: Activity, _context: Context<T>): Activity {
  if ("mastodonTerms" in activity) return activity;
  const Wire = withMastodonTerms(activity.constructor as VocabClass);
  // Fedify's `clone` builds `new this.constructor(…)` and copies every
  // property: with the constructor shadowed on the instance for the call,
  // the copy is the same activity as a Wire instance.
  Object.defineProperty(activity, "constructor", { value: Wire, configurable: true });
  try {
    return activity.clone() as Activity;
  } finally {
    delete (activity as { constructor?: unknown }).constructor;
  }
}

/** A Note that serializes with its {@link NoteTerms}. */
export const WireNote = withMastodonTerms(Note);
/** A Question (poll) that serializes with its {@link NoteTerms}. */
export const WireQuestion = withMastodonTerms(Question);
/** A Create whose embedded Note serializes with its terms. */
export const WireCreate = withMastodonTerms(Create);
/** An Update whose embedded Note (or actor) serializes with its terms. */
export const WireUpdate = withMastodonTerms(Update);
/** A Person (an actor) that serializes with its {@link NodeExtras}. */
export const WirePerson = withMastodonTerms(Person);
/** A Service (a bot's actor) that serializes with its {@link NodeExtras}. */
export const WireService = withMastodonTerms(Service);

/** Lets `carrier` (an activity) serialize the terms of `object` (a Wire Note) it embeds. */
export function carryTerms<T extends CarriesTerms>(carrier: T, object: unknown): T {
  const terms = (object as Partial<CarriesTerms> | null)?.mastodonTerms;
  if (terms) { for (const [id, t] of terms) carrier.mastodonTerms.set(id, t); }
  return carrier;
}

/** Adds the terms to every node of `json` named in `terms`, and their context to the document. */
export function addTerms(json: Json, terms: Map<string, NoteTerms | NodeExtras>): Json {
  let usesMedia = false;
  let extraContext: Json = {};
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || !node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
      return;
    }
    const record = node as Json;
    const t = typeof record.id === "string" ? terms.get(record.id) : undefined;
    if (t && "members" in t) {
      Object.assign(record, structuredClone(t.members));
      extraContext = { ...extraContext, ...t.context };
    } else if (t) usesMedia = applyNoteTerms(record, t) || usesMedia;
    for (const key of ["object", "orderedItems", "items"]) visit(record[key], depth + 1);
  };
  visit(json, 0);
  const context = usesMedia ? { ...TERMS_CONTEXT, ...extraContext } : extraContext;
  if (Object.keys(context).length) json["@context"] = withTermsContext(json["@context"], context);
  return json;
}

/** Writes the maps and the attachments' terms on one compacted Note; true when media terms were written. */
function applyNoteTerms(note: Json, terms: NoteTerms): boolean {
  if (terms.language) {
    note.contentMap = { [terms.language]: terms.content };
    if (terms.summary) note.summaryMap = { [terms.language]: terms.summary };
  }
  let written = false;
  const attachments = Array.isArray(note.attachment)
    ? note.attachment
    : note.attachment
    ? [note.attachment]
    : [];
  for (const attachment of attachments) {
    if (!attachment || typeof attachment !== "object") continue;
    const record = attachment as Json;
    const found = terms.attachments.get(urlOf(record.url) ?? "");
    if (!found) continue;
    if (found.blurhash) record.blurhash = found.blurhash;
    if (found.focalPoint) record.focalPoint = found.focalPoint;
    written = true;
  }
  return written;
}

function urlOf(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return urlOf(value[0]);
  if (value && typeof value === "object") {
    const href = (value as Json).href;
    return typeof href === "string" ? href : null;
  }
  return null;
}

/** The document's context with `definitions` (Mastodon's of blurhash and focalPoint…) added. */
function withTermsContext(context: unknown, definitions: Json): unknown[] {
  const entries = context == null ? [] : Array.isArray(context) ? [...context] : [context];
  const index = entries.findIndex((e) => e && typeof e === "object" && !Array.isArray(e));
  if (index < 0) return [...entries, definitions];
  entries[index] = { ...entries[index] as Json, ...definitions };
  return entries;
}
