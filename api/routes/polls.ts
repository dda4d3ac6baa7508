/**
 * Polls:
 * - GET /api/v1/polls/:id (public; a token that comes along needs
 *   read:statuses) → Poll; 404 when the poll is missing or its status is
 *   not visible to the caller (the one visibility module decides).
 * - POST /api/v1/polls/:id/votes (user + write:statuses; choices[] of option
 *   indexes from 0) → Poll; 422 with Mastodon's messages for an ended poll,
 *   a repeated vote, an unknown option or one's own poll; 403 across a block.
 *   A missing `choices` is Rails' 400 for a missing parameter.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readStringArray } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { loadPollEntities } from "../entities/poll.ts";
import { scopesIfToken, viewerAccountId } from "./accounts_access.ts";
import { me } from "./relationships.ts";
import { isId } from "../../db/ids.ts";
import { polls } from "../../db/schema/mod.ts";
import { eq } from "drizzle-orm";
import { canSeeStatus } from "../../db/queries/visibility.ts";
import { NotFoundError } from "../../model/errors.ts";
import { VOTE_ERRORS, votePoll, VoteRefusedError } from "../../actors/polls/vote.ts";

/** Mastodon answers this many choices at most (more than any poll's options). */
const MAX_CHOICES = 100;

function pollId(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!isId(id)) throw new ApiError(404, "Record not found");
  return id;
}

async function pollJson(c: Context<ApiEnv>, id: string) {
  const viewer = viewerAccountId(c);
  const { database, mediaUrls } = c.get("ctx");
  const entities = await loadPollEntities(
    database.db,
    [id],
    viewer ? { accountId: viewer } : null,
    mediaUrls,
  );
  const json = entities.get(id);
  if (!json) throw new ApiError(404, "Record not found");
  return json;
}

/**
 * The `choices[]` of a vote as option indexes (anything not a number is -1,
 * which the vote refuses as an unknown option); null when none were sent.
 * The web app's vote form is read by the same function.
 */
export function readVoteChoices(p: Params): number[] | null {
  const raw = readStringArray(p, "choices", { maxItems: MAX_CHOICES });
  if (!raw || raw.length === 0) return null;
  return raw.map((s) => /^\s*\d{1,9}\s*$/.test(s) ? Number(s) : -1);
}

/** The poll routes, mounted at the root of the app. */
export function pollRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/polls/:id", scopesIfToken("read:statuses"), async (c) => {
    const id = pollId(c);
    const { db } = c.get("ctx").database;
    const [poll] = await db.select({ statusId: polls.statusId }).from(polls)
      .where(eq(polls.id, id)).limit(1);
    if (!poll?.statusId || !await canSeeStatus(db, viewerAccountId(c), { id: poll.statusId })) {
      throw new ApiError(404, "Record not found");
    }
    return c.json(await pollJson(c, id));
  });

  app.post("/api/v1/polls/:id/votes", requireUser("write:statuses"), async (c) => {
    const id = pollId(c);
    const choices = readVoteChoices(await params(c));
    if (!choices) throw new ApiError(400, "param is missing or the value is empty: choices");
    try {
      await votePoll(c.get("ctx"), { accountId: me(c), pollId: id, choices });
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      if (error instanceof VoteRefusedError) {
        if (error.status === 403) throw new ApiError(403, VOTE_ERRORS.blocked);
        throw validationFailed(error.reasons.join(", "));
      }
      throw error;
    }
    return c.json(await pollJson(c, id));
  });
  return app;
}
