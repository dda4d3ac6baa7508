/**
 * Announcements (user tokens), as Mastodon 3.1+:
 * - GET /api/v1/announcements (read) → Announcement[]: published, not ended,
 *   not dismissed unless `with_dismissed`; oldest start first
 * - POST /api/v1/announcements/:id/dismiss (write:accounts) → {}
 * - PUT /api/v1/announcements/:id/reactions/:name (write:favourites) → {}
 * - DELETE /api/v1/announcements/:id/reactions/:name (write:favourites) → {}
 *
 * An unknown, unpublished or ended announcement is 404 "Record not found";
 * a reaction that is no emoji is 422 "Validation failed: Name is not a
 * recognized emoji", one over the limit of kinds 422 "Validation failed:
 * Limit of different reactions reached". Administrators write announcements
 * with `deno task admin announcement` (admin/announcement_commands.ts).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { readBoolean } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeAnnouncements } from "../entities/announcement.ts";
import { isId } from "../../db/ids.ts";
import { activeAnnouncements } from "../../actors/announcements/manage.ts";
import {
  addAnnouncementReaction,
  dismissAnnouncement,
  removeAnnouncementReaction,
} from "../../actors/announcements/reactions.ts";
import { me, relationshipError } from "./relationships.ts";

function announcementId(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!id || !isId(id)) throw new ApiError(404, "Record not found");
  return id;
}

/** Runs a command, answering its NotFoundError with 404 and ValidationError with 422. */
async function run(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (error) {
    throw relationshipError(error);
  }
}

/** The announcement routes, mounted at the root of the app. */
export function announcementRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const reactions = requireUser("write:favourites");

  app.get("/api/v1/announcements", requireUser("read"), async (c) => {
    const ctx = c.get("ctx");
    const withDismissed = readBoolean(await params(c), "with_dismissed") ?? false;
    const rows = await activeAnnouncements(ctx.database.db, me(c), { withDismissed });
    return c.json(await serializeAnnouncements(ctx, rows, me(c)));
  });

  app.post("/api/v1/announcements/:id/dismiss", requireUser("write:accounts"), async (c) => {
    const id = announcementId(c);
    await run(() => dismissAnnouncement(c.get("ctx").database.db, me(c), id));
    return c.json({});
  });

  app.on(["PUT", "PATCH"], "/api/v1/announcements/:id/reactions/:name", reactions, async (c) => {
    const id = announcementId(c);
    const name = c.req.param("name");
    await run(() => addAnnouncementReaction(c.get("ctx").database.db, me(c), id, name));
    return c.json({});
  });

  app.delete("/api/v1/announcements/:id/reactions/:name", reactions, async (c) => {
    const id = announcementId(c);
    const name = c.req.param("name");
    await run(() => removeAnnouncementReaction(c.get("ctx").database.db, me(c), id, name));
    return c.json({});
  });

  return app;
}
