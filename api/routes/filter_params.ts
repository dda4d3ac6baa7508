/**
 * Reading the parameters of the filter routes (v1 and v2) and answering
 * their commands' errors: NotFoundError → 404 "Record not found",
 * ValidationError → 422 "Validation failed: …".
 */
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import type { Params } from "../params.ts";
import {
  readBoolean,
  readInt,
  readPermittedObjectList,
  readString,
  readStringArray,
} from "../readers.ts";
import { withValidation } from "../validation_errors.ts";
import { isId } from "../../db/ids.ts";
import { NotFoundError } from "../../model/errors.ts";
import type { FilterInput, KeywordAttributes } from "../../actors/filters/filters.ts";
import {
  FILTER_CONTEXTS,
  MAX_EXPIRES_IN,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS_PER_FILTER,
  MAX_TITLE_LENGTH,
} from "../../actors/filters/rules.ts";

export const NOT_FOUND = "Record not found";

/** A path id that cannot exist is a 404 before any query. */
export function pathId(c: Context<ApiEnv>, name = "id"): string {
  const id = c.req.param(name);
  if (!id || !isId(id)) throw new ApiError(404, NOT_FOUND);
  return id;
}

/** Runs a filter command, answering NotFoundError with 404 and ValidationError with 422. */
export async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await withValidation(fn);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, NOT_FOUND);
    throw error;
  }
}

/** Bounds on strings read before validation, so no oversized value reaches a command. */
const TEXT_BOUND = Math.max(MAX_TITLE_LENGTH, MAX_KEYWORD_LENGTH) * 4;

/** A text parameter (blank kept, so the command can say "can't be blank"). */
export function readText(p: Params, key: string): string | undefined {
  return readString(p, key, { maxLength: TEXT_BOUND, allowBlank: true });
}

/** `context[]` (a lone string counts as one). */
export function readContexts(p: Params): string[] | undefined {
  return readStringArray(p, "context", { maxItems: FILTER_CONTEXTS.length * 2 });
}

/**
 * `expires_in` in seconds: absent → unchanged, blank or null → never
 * expires (Rails' `present?`), a number of seconds otherwise.
 */
export function readExpiresIn(p: Params): number | null | undefined {
  if (!("expires_in" in p)) return undefined;
  if (p.expires_in === null || p.expires_in === "") return null;
  return readInt(p, "expires_in", { min: 0, max: MAX_EXPIRES_IN });
}

/** `keywords_attributes[][keyword|whole_word|id|_destroy]`. */
function readKeywordAttributes(p: Params): KeywordAttributes[] | undefined {
  const items = readPermittedObjectList(p, "keywords_attributes");
  if (!items) return undefined;
  if (items.length > MAX_KEYWORDS_PER_FILTER * 2) {
    throw validationFailed(
      `Keywords attributes has too many items (maximum is ${MAX_KEYWORDS_PER_FILTER * 2})`,
    );
  }
  return items.map((item) => {
    const id = readString(item, "id");
    // A nested id that cannot exist is not the filter's: Rails' RecordNotFound.
    if (id !== undefined && !isId(id)) throw new ApiError(404, NOT_FOUND);
    return {
      id,
      keyword: readText(item, "keyword"),
      wholeWord: readBoolean(item, "whole_word"),
      destroy: readBoolean(item, "_destroy") ?? false,
    };
  });
}

/** The parameters of POST and PUT /api/v2/filters. */
export function readFilterInput(p: Params): FilterInput {
  return {
    title: readText(p, "title"),
    context: readContexts(p),
    action: readString(p, "filter_action", { maxLength: 32 }),
    expiresIn: readExpiresIn(p),
    keywords: readKeywordAttributes(p),
  };
}
