/**
 * Relation actions on other accounts, each answering the Relationship:
 * POST /api/v1/accounts/:id/{follow, unfollow, remove_from_followers, block,
 * unblock, mute, unmute, endorse, unendorse, pin, unpin, note}, and
 * GET /api/v1/accounts/relationships?id[]=.
 *
 * Decisions:
 * - A malformed or unknown `:id` (or a deleted account) answers 404 "Record
 *   not found", as Mastodon; so does an action on oneself where Mastodon
 *   treats the target as missing. Following oneself is 403 with Mastodon's
 *   4.3 message; blocking or muting oneself is a 422.
 * - `languages[]` takes ISO 639 codes (2 or 3 letters); an empty list means
 *   all languages. Anything else is a 422.
 * - `relationships` answers in the order of `id[]`, skipping ids that name
 *   no account (and, without `with_suspended`, suspended ones), as Mastodon.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { and, inArray, isNull } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import { type Params, params } from "../params.ts";
import type { AppContext } from "../../context.ts";
import { readBoolean, readInt, readString, readStringArray } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { loadRelationships } from "../entities/relationship.ts";
import { isId } from "../../db/ids.ts";
import { accounts } from "../../db/schema/mod.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import {
  follow,
  NotPermittedError,
  removeFromFollowers,
  SelfFollowError,
  unfollow,
} from "../../actors/relationships/follows.ts";
import { block, unblock } from "../../actors/relationships/blocks.ts";
import { MAX_MUTE_SECONDS, mute, unmute } from "../../actors/relationships/mutes.ts";
import { endorse, unendorse } from "../../actors/relationships/endorsements.ts";
import { NOTE_MAX, setAccountNote } from "../../actors/relationships/account_notes.ts";

/** Mastodon answers relationships for at most this many ids at once. */
export const MAX_RELATIONSHIP_IDS = 40;

/** Turns the relationship commands' errors into Mastodon's answers. */
export function relationshipError(error: unknown): unknown {
  if (error instanceof NotFoundError) return new ApiError(404, "Record not found");
  if (error instanceof SelfFollowError) return new ApiError(403, error.message);
  if (error instanceof NotPermittedError) return new ApiError(403, error.message);
  if (error instanceof ValidationError) {
    const reasons = Object.entries(error.details).flatMap(([field, entries]) =>
      entries.map((e) => field === "base" ? e.description : `${humanize(field)} ${e.description}`)
    );
    return validationFailed(reasons.join(", "));
  }
  return error;
}

function humanize(field: string): string {
  const s = field.replaceAll("_", " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The signed-in user's account id (the scope middleware guarantees a user). */
export function me(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

/** The `:id` (or `:account_id`) path parameter, 404 when it cannot be an id. */
export function targetId(c: Context<ApiEnv>, name = "id"): string {
  const id = c.req.param(name);
  if (!isId(id)) throw new ApiError(404, "Record not found");
  return id;
}

/** Runs a command and answers with the Relationship to the target. */
export async function answerRelationship(
  c: Context<ApiEnv>,
  target: string,
  command: () => Promise<unknown>,
): Promise<Response> {
  try {
    await command();
  } catch (error) {
    throw relationshipError(error);
  }
  const [relationship] = await loadRelationships(c.get("ctx").database.db, me(c), [target]);
  return c.json(relationship);
}

const LANGUAGE = /^[a-z]{2,3}$/;

function readLanguages(p: Params): string[] | null | undefined {
  if (!("languages" in p)) return undefined;
  const list = readStringArray(p, "languages", { maxItems: 200 }) ?? [];
  const codes = list.map((l) => l.trim().toLowerCase());
  if (!codes.every((l) => LANGUAGE.test(l))) throw validationFailed("Languages is invalid");
  return codes.length ? [...new Set(codes)] : null;
}

/** GET /api/v1/accounts/relationships?id[]=: in the order asked, unknown accounts skipped. */
async function relationships(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const ids = (readStringArray(p, "id", { maxItems: 10_000 }) ?? []).filter(isId)
    .slice(0, MAX_RELATIONSHIP_IDS);
  if (ids.length === 0) return c.json([]);
  const withSuspended = readBoolean(p, "with_suspended") ?? false;
  const db = c.get("ctx").database.db;
  const known = await db.select({ id: accounts.id }).from(accounts).where(and(
    inArray(accounts.id, ids),
    isNull(accounts.deletedAt),
    withSuspended ? undefined : isNull(accounts.suspendedAt),
  ));
  const exists = new Set(known.map((r) => r.id));
  return c.json(await loadRelationships(db, me(c), ids.filter((id) => exists.has(id))));
}

/**
 * A handler running `command` on the path's account and answering the
 * Relationship; `read` takes the command's options from the parameters
 * (only then is the body read).
 */
function relationAction<O>(
  command: (ctx: AppContext, viewer: string, target: string, options: O) => Promise<unknown>,
  read?: (p: Params) => O,
) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const target = targetId(c);
    const options = read ? read(await params(c)) : undefined as O;
    return await answerRelationship(c, target, () => command(c.get("ctx"), me(c), target, options));
  };
}

export function readFollowOptions(p: Params) {
  return {
    reblogs: readBoolean(p, "reblogs"),
    notify: readBoolean(p, "notify"),
    languages: readLanguages(p),
  };
}

export function readMuteOptions(p: Params) {
  return {
    notifications: readBoolean(p, "notifications"),
    duration: readInt(p, "duration", { min: 0, max: MAX_MUTE_SECONDS }),
  };
}

function readComment(p: Params): string {
  return readString(p, "comment", { allowBlank: true, maxLength: NOTE_MAX }) ?? "";
}

/** The relation action routes, mounted at the root of the app. */
export function relationshipRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const writeFollows = requireUser("write:follows", "follow");
  const writeBlocks = requireUser("write:blocks", "follow");
  const writeMutes = requireUser("write:mutes", "follow");
  const writeAccounts = requireUser("write:accounts");
  const on = "/api/v1/accounts/:id";
  app.get("/api/v1/accounts/relationships", requireUser("read:follows", "follow"), relationships);
  app.post(`${on}/follow`, writeFollows, relationAction(follow, readFollowOptions));
  app.post(`${on}/unfollow`, writeFollows, relationAction(unfollow));
  app.post(`${on}/remove_from_followers`, writeFollows, relationAction(removeFromFollowers));
  app.post(`${on}/block`, writeBlocks, relationAction((ctx, m, t) => block(ctx, m, t)));
  app.post(`${on}/unblock`, writeBlocks, relationAction(unblock));
  app.post(`${on}/mute`, writeMutes, relationAction(mute, readMuteOptions));
  app.post(`${on}/unmute`, writeMutes, relationAction(unmute));
  for (const action of ["endorse", "pin"]) {
    app.post(`${on}/${action}`, writeAccounts, relationAction(endorse));
  }
  for (const action of ["unendorse", "unpin"]) {
    app.post(`${on}/${action}`, writeAccounts, relationAction(unendorse));
  }
  app.post(`${on}/note`, writeAccounts, relationAction(setAccountNote, readComment));
  return app;
}
