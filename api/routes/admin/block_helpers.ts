/**
 * What the admin routes for access blocks share: the acting staff account,
 * ids from the path (a malformed one is simply unknown: 404), and
 * Mastodon's answers to a command's NotFoundError (404) and
 * ValidationError (422).
 */
import type { Context } from "hono";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { withValidation } from "../../validation_errors.ts";
import { isId } from "../../../db/ids.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../../pagination.ts";
import type { Params } from "../../params.ts";
import type { Page } from "../../../db/queries/id_paging.ts";

/** The staff member's account (requireStaff ran first). */
export function staffAccount(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

/** The `:id` of the path, or 404 when it cannot be an id. */
export function pathId(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!isId(id)) throw new ApiError(404, "Record not found");
  return id;
}

/** Runs a command, answering NotFoundError with 404 and ValidationError with 422. */
export async function runCommand<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await withValidation(fn);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    throw error;
  }
}

/** The admin page size (100 by default, 200 at most) from the query. */
export function blockPage(p: Params): Page {
  return readPageParams(p, PAGE_SIZES.admin);
}

/** The `Link` header of a page of blocks (newest first). */
export function linkBlocks(c: Context<ApiEnv>, rows: readonly { id: string }[], limit: number) {
  setPaginationHeaders(c, rows, (r) => r.id, { hasMore: rows.length >= limit });
}
