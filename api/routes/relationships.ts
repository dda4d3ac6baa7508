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
import { params } from "../params.ts";
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

function readLanguages(p: Awaited<ReturnType<typeof params>>): string[] | null | undefined {
  if (!("languages" in p)) return undefined;
  const list = readStringArray(p, "languages", { maxItems: 200 }) ?? [];
  const codes = list.map((l) => l.trim().toLowerCase());
  if (!codes.every((l) => LANGUAGE.test(l))) throw validationFailed("Languages is invalid");
  return codes.length ? [...new Set(codes)] : null;
}

/** The relation action routes, mounted at the root of the app. */
export function relationshipRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const writeFollows = requireUser("write:follows", "follow");
  const writeBlocks = requireUser("write:blocks", "follow");
  const writeMutes = requireUser("write:mutes", "follow");
  const writeAccounts = requireUser("write:accounts");

  app.get("/api/v1/accounts/relationships", requireUser("read:follows", "follow"), async (c) => {
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
  });

  app.post("/api/v1/accounts/:id/follow", writeFollows, async (c) => {
    const target = targetId(c);
    const p = await params(c);
    const options = {
      reblogs: readBoolean(p, "reblogs"),
      notify: readBoolean(p, "notify"),
      languages: readLanguages(p),
    };
    return await answerRelationship(c, target, () => follow(c.get("ctx"), me(c), target, options));
  });

  app.post("/api/v1/accounts/:id/unfollow", writeFollows, async (c) => {
    const target = targetId(c);
    return await answerRelationship(c, target, () => unfollow(c.get("ctx"), me(c), target));
  });

  app.post("/api/v1/accounts/:id/remove_from_followers", writeFollows, async (c) => {
    const target = targetId(c);
    return await answerRelationship(
      c,
      target,
      () => removeFromFollowers(c.get("ctx"), me(c), target),
    );
  });

  app.post("/api/v1/accounts/:id/block", writeBlocks, async (c) => {
    const target = targetId(c);
    return await answerRelationship(c, target, () => block(c.get("ctx"), me(c), target));
  });

  app.post("/api/v1/accounts/:id/unblock", writeBlocks, async (c) => {
    const target = targetId(c);
    return await answerRelationship(c, target, () => unblock(c.get("ctx"), me(c), target));
  });

  app.post("/api/v1/accounts/:id/mute", writeMutes, async (c) => {
    const target = targetId(c);
    const p = await params(c);
    const options = {
      notifications: readBoolean(p, "notifications"),
      duration: readInt(p, "duration", { min: 0, max: MAX_MUTE_SECONDS }),
    };
    return await answerRelationship(c, target, () => mute(c.get("ctx"), me(c), target, options));
  });

  app.post("/api/v1/accounts/:id/unmute", writeMutes, async (c) => {
    const target = targetId(c);
    return await answerRelationship(c, target, () => unmute(c.get("ctx"), me(c), target));
  });

  for (const action of ["endorse", "pin"]) {
    app.post(`/api/v1/accounts/:id/${action}`, writeAccounts, async (c) => {
      const target = targetId(c);
      return await answerRelationship(c, target, () => endorse(c.get("ctx"), me(c), target));
    });
  }
  for (const action of ["unendorse", "unpin"]) {
    app.post(`/api/v1/accounts/:id/${action}`, writeAccounts, async (c) => {
      const target = targetId(c);
      return await answerRelationship(c, target, () => unendorse(c.get("ctx"), me(c), target));
    });
  }

  app.post("/api/v1/accounts/:id/note", writeAccounts, async (c) => {
    const target = targetId(c);
    const p = await params(c);
    const comment = readString(p, "comment", { allowBlank: true, maxLength: NOTE_MAX }) ?? "";
    return await answerRelationship(
      c,
      target,
      () => setAccountNote(c.get("ctx"), me(c), target, comment),
    );
  });

  return app;
}
