/**
 * The fields of a local collection and their rules (Mastodon 4.6's
 * Collection validations): a name of 1–40 characters, a description of at
 * most 100, an ISO 639-1 language or none, one usable hashtag or none, and
 * two flags. What a create or an update was given, checked and normalized;
 * the problems are collected under the parameter names clients sent.
 */
import type { Executor } from "../../db/connection.ts";
import { findOrCreateTags, isValidTagName, normalizeTagName } from "../../db/queries/tags.ts";
import { Problems } from "../../model/errors.ts";
import { normalizeLanguage } from "../statuses/validation.ts";

/** Mastodon's limits for local collections. */
export const COLLECTION_LIMITS = {
  nameLength: 40,
  descriptionLength: 100,
  /** Pending and accepted items of one local collection. */
  items: 25,
} as const;

/** What a create or an update may set (absent: unchanged, or the default on create). */
export interface CollectionInput {
  name?: string;
  description?: string | null;
  language?: string | null;
  /** A hashtag, with or without `#`; "" or null clears it. */
  tagName?: string | null;
  sensitive?: boolean;
  discoverable?: boolean;
}

/** The checked values, as columns (absent: not given). */
export interface CollectionColumns {
  name?: string;
  description?: string | null;
  language?: string | null;
  tagId?: string | null;
  sensitive?: boolean;
  discoverable?: boolean;
}

function tooLong(problems: Problems, field: string, max: number): void {
  problems.add(field, "ERR_TOO_LONG", `is too long (maximum is ${max} characters)`);
}

/**
 * Checks `input` (all of it on create, where a name is required) into
 * `problems`, and returns the columns to write. The hashtag is found or
 * created in `tx` (Mastodon's `Tag.find_or_create_by_names`), so call it
 * inside the command's transaction.
 */
export async function checkCollectionInput(
  tx: Executor,
  input: CollectionInput,
  creating: boolean,
  problems: Problems,
): Promise<CollectionColumns> {
  const columns: CollectionColumns = {};
  if (input.name !== undefined || creating) {
    const name = (input.name ?? "").trim();
    if (name === "") problems.add("name", "ERR_BLANK", "can't be blank");
    else if ([...name].length > COLLECTION_LIMITS.nameLength) {
      tooLong(problems, "name", COLLECTION_LIMITS.nameLength);
    }
    columns.name = name;
  }
  if (input.description !== undefined) {
    const description = input.description ?? "";
    if ([...description].length > COLLECTION_LIMITS.descriptionLength) {
      tooLong(problems, "description", COLLECTION_LIMITS.descriptionLength);
    }
    columns.description = description === "" ? null : description;
  }
  if (input.language !== undefined) {
    const raw = (input.language ?? "").trim();
    const code = raw === "" ? null : normalizeLanguage(raw);
    if (raw !== "" && !code) {
      problems.add("language", "ERR_INCLUSION", "is not included in the list");
    }
    columns.language = code;
  }
  if (input.tagName !== undefined) columns.tagId = await tagOf(tx, input.tagName, problems);
  if (input.sensitive !== undefined) columns.sensitive = input.sensitive;
  if (input.discoverable !== undefined) columns.discoverable = input.discoverable;
  return columns;
}

async function tagOf(
  tx: Executor,
  tagName: string | null,
  problems: Problems,
): Promise<string | null> {
  const name = normalizeTagName((tagName ?? "").trim());
  if (name === "") return null;
  if (!isValidTagName(name)) {
    problems.add("tag_name", "ERR_INVALID", "is invalid");
    return null;
  }
  // Only a valid name reaches the table (nothing is created for a refused request's checks).
  if (!problems.empty) return null;
  const tag = (await findOrCreateTags(tx, [name])).get(name.toLowerCase());
  if (tag && !tag.usable) problems.add("tag_name", "ERR_INVALID", "is not usable");
  return tag?.id ?? null;
}
