/**
 * The note of a Create federation/inbox/plain_create.ts reads, as Mastodon
 * 4.5 writes one (see that module's comment for the rule): its ids,
 * addressing, dates, texts and language map, warning, reply target, url,
 * conversation, tags (plain_tags.ts), media (plain_attachments.ts), and
 * the interaction policy Mastodon 4.5 states (`canQuote`, GoToSocial's
 * vocabulary; GoToSocial's other sub-policies alike).
 */
import { InteractionPolicy, InteractionRule, LanguageString, Note } from "@fedify/vocab";
import { remember } from "../dialects/received.ts";
import { isJson, type Json } from "../dialects/terms.ts";
import type { Vocabulary } from "./plain_context.ts";
import { readAttachments } from "./plain_attachments.ts";
import { readTags } from "./plain_tags.ts";
import {
  fail,
  httpUrl,
  inert,
  instant,
  iris,
  object,
  onlyKeys,
  optional,
  text,
} from "./plain_values.ts";

/** The note's keys read here. */
const NOTE_KEYS = new Set([
  "@context",
  "id",
  "type",
  "attributedTo",
  "published",
  "updated",
  "to",
  "cc",
  "content",
  "contentMap",
  "summary",
  "sensitive",
  "inReplyTo",
  "url",
  "context",
  "tag",
  "attachment",
  "interactionPolicy",
]);
/**
 * Keys Fedify's objects would carry (or drop) but that nothing reads from
 * them: Mastodon's OStatus ids and its replies, likes and shares
 * collections; Misskey's source text. Skipped, once checked to be plain
 * data JSON-LD reads without error.
 */
const SKIPPED_KEYS = new Set([
  "atomUri",
  "inReplyToAtomUri",
  "conversation",
  "replies",
  "likes",
  "shares",
  "_misskey_content",
  "source",
]);
const COLLECTIONS = new Set(["Collection", "OrderedCollection"]);
const PAGES = new Set(["CollectionPage", "OrderedCollectionPage"]);
const SOURCE_KEYS = new Set(["content", "mediaType"]);
/** The sub-policies of an interaction policy. */
const RULES = ["canQuote", "canLike", "canReply", "canAnnounce"] as const;
const RULE_KEYS = new Set(["automaticApproval", "manualApproval"]);
/** A language map's key read here: a bare ISO 639 code, as Mastodon writes them. */
const LANGUAGE = /^[a-z]{2,3}$/;

export function readNote(json: Json, vocabulary: Vocabulary): Note {
  for (const [key, value] of Object.entries(json)) {
    if (SKIPPED_KEYS.has(key)) skipped(key, value);
    else if (!NOTE_KEYS.has(key)) fail();
  }
  const sensitive = optional(
    json.sensitive,
    (value) => typeof value === "boolean" ? value : fail(),
  );
  const id = httpUrl(json.id);
  const note = new Note({
    id,
    attribution: httpUrl(json.attributedTo),
    published: optional(json.published, instant),
    updated: optional(json.updated, instant),
    tos: iris(json.to),
    ccs: iris(json.cc),
    contents: contents(json.content, json.contentMap),
    summary: optional(json.summary, text),
    // Without Mastodon's definition, JSON-LD drops `sensitive` (the raw JSON still has it).
    sensitive: vocabulary.has("sensitive") ? sensitive : null,
    replyTarget: optional(json.inReplyTo, httpUrl),
    url: optional(json.url, httpUrl),
    contexts: optional(json.context, (value) => [httpUrl(value)]) ?? [],
    tags: readTags(json.tag, vocabulary, id.origin),
    attachments: readAttachments(json.attachment, vocabulary),
    interactionPolicy: optional(json.interactionPolicy, (value) => policy(value, vocabulary)),
  });
  return remember(note, json);
}

/** Checks a skipped key's value (see {@link SKIPPED_KEYS}). */
function skipped(key: string, value: unknown): void {
  if (value == null) return;
  if (key === "replies" || key === "likes" || key === "shares") {
    const collection = object(value);
    if (!COLLECTIONS.has(collection.type as string)) fail();
    const first = collection.first;
    if (isJson(first) && !PAGES.has(first.type as string)) fail();
  } else if (key === "source") {
    const source = object(value);
    onlyKeys(source, SOURCE_KEYS);
    text(source.content);
    text(source.mediaType);
  } else text(value);
  inert(value);
}

/**
 * `content` and `contentMap`, in the order JSON-LD's expansion gives them
 * (keys sorted: the plain string, then the map by language).
 */
function contents(content: unknown, map: unknown): (string | LanguageString)[] {
  const out: (string | LanguageString)[] = [];
  if (content != null) out.push(text(content));
  if (map == null) return out;
  for (const [language, value] of Object.entries(object(map)).sort(([a], [b]) => a < b ? -1 : 1)) {
    if (!LANGUAGE.test(language)) fail();
    out.push(new LanguageString(text(value), language));
  }
  return out;
}

/**
 * The interaction policy, where the context defines GoToSocial's terms as
 * Mastodon 4.5's does; where it defines none of them JSON-LD drops the
 * policy, and so does this reading.
 */
function policy(value: unknown, vocabulary: Vocabulary): InteractionPolicy | undefined {
  const json = object(value);
  onlyKeys(json, new Set(RULES));
  if (!vocabulary.has("interactionPolicy")) {
    for (const term of [...RULES, ...RULE_KEYS]) if (vocabulary.has(term)) fail();
    inert(json);
    return undefined;
  }
  const rules: Partial<Record<typeof RULES[number], InteractionRule>> = {};
  for (const name of RULES) {
    if (json[name] == null) continue;
    if (!vocabulary.has(name)) fail();
    rules[name] = rule(json[name], vocabulary);
  }
  return new InteractionPolicy(rules);
}

function rule(value: unknown, vocabulary: Vocabulary): InteractionRule {
  const json = object(value);
  onlyKeys(json, RULE_KEYS);
  const approvals = (key: string) => {
    if (json[key] == null) return [];
    if (!vocabulary.has(key)) fail();
    return iris(json[key]);
  };
  return new InteractionRule({
    automaticApprovals: approvals("automaticApproval"),
    manualApprovals: approvals("manualApproval"),
  });
}
