/**
 * Direct-message conversations (user tokens):
 * - GET /api/v1/conversations (read:statuses) → Conversation[] by latest
 *   status, 20 by default and 40 at most, Link headers (cursors are status ids)
 * - POST /api/v1/conversations/:id/read (write:conversations) → Conversation
 * - POST /api/v1/conversations/:id/unread (write:conversations, Mastodon 4.2,
 *   undocumented) → Conversation with unread true
 * - DELETE /api/v1/conversations/:id (write:conversations) → {}
 * Another account's conversation is 404 "Record not found", like a missing one.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { setLinkHeader } from "../pagination.ts";
import { readConversations } from "../reads/collections.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeConversations } from "../entities/conversation.ts";
import { isId } from "../../db/ids.ts";
import {
  markConversationRead,
  markConversationUnread,
  removeConversation,
} from "../../actors/timelines/conversations.ts";
import { NotFoundError } from "../../model/errors.ts";
import { viewerAccountId } from "./accounts_access.ts";

const NOT_FOUND = "Record not found";

function conversationId(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!id || !isId(id)) throw new ApiError(404, NOT_FOUND);
  return id;
}

async function orNotFound<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, NOT_FOUND);
    throw error;
  }
}

/** The conversation routes, mounted at the root of the app. */
export function conversationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/conversations", requireUser("read:statuses"), async (c) => {
    const read = await readConversations(c.get("ctx"), viewerAccountId(c)!, await params(c));
    setLinkHeader(c, read.cursors);
    return c.json(read.items);
  });

  for (
    const [action, mark] of [["read", markConversationRead], [
      "unread",
      markConversationUnread,
    ]] as const
  ) {
    app.post(
      `/api/v1/conversations/:id/${action}`,
      requireUser("write:conversations"),
      async (c) => {
        const ctx = c.get("ctx");
        const me = viewerAccountId(c)!;
        const id = conversationId(c);
        const row = await orNotFound(() => mark(ctx.database.db, me, id));
        const [json] = await serializeConversations(ctx, [row], me);
        if (!json) throw new ApiError(404, NOT_FOUND);
        return c.json(json);
      },
    );
  }

  app.delete("/api/v1/conversations/:id", requireUser("write:conversations"), async (c) => {
    const me = viewerAccountId(c)!;
    const id = conversationId(c);
    await orNotFound(() => removeConversation(c.get("ctx").database.db, me, id));
    return c.json({});
  });

  return app;
}
