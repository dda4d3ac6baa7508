/**
 * The signed-in user's scheduled statuses:
 * - GET /api/v1/scheduled_statuses (read:statuses) → ScheduledStatus[], newest
 *   id first, 20 by default and 40 at most, Link headers (max_id / min_id)
 * - GET /api/v1/scheduled_statuses/:id (read:statuses) → ScheduledStatus
 * - PUT /api/v1/scheduled_statuses/:id (write:statuses; scheduled_at at least
 *   five minutes ahead, within the account limits) → ScheduledStatus; without
 *   `scheduled_at` nothing changes, as Rails' update with no attributes
 * - DELETE /api/v1/scheduled_statuses/:id (write:statuses) → {}
 * Someone else's or a malformed id is 404 "Record not found".
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import { params } from "../params.ts";
import { setLinkHeader } from "../pagination.ts";
import { readScheduledStatuses } from "../reads/scheduled_statuses.ts";
import { readString } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeScheduledStatuses } from "../entities/scheduled_status.ts";
import { me } from "./relationships.ts";
import { isId } from "../../db/ids.ts";
import { NotFoundError } from "../../model/errors.ts";
import { StatusError } from "../../actors/statuses/errors.ts";
import {
  cancelScheduledStatus,
  findScheduledStatus,
  rescheduleStatus,
  type ScheduledStatusRow,
} from "../../actors/statuses/scheduled_statuses.ts";

function scheduledId(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!isId(id)) throw new ApiError(404, "Record not found");
  return id;
}

/** Runs a command, answering its errors in Mastodon's shape. */
async function command<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    if (error instanceof StatusError) throw new ApiError(error.status, error.message);
    throw error;
  }
}

async function one(c: Context<ApiEnv>, row: ScheduledStatusRow) {
  const [json] = await serializeScheduledStatuses(c.get("ctx"), [row]);
  return c.json(json);
}

/** The scheduled status routes, mounted at the root of the app. */
export function scheduledStatusRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const readStatuses = requireUser("read:statuses");
  const writeStatuses = requireUser("write:statuses");

  app.get("/api/v1/scheduled_statuses", readStatuses, async (c) => {
    const read = await readScheduledStatuses(c.get("ctx"), me(c), await params(c));
    setLinkHeader(c, read.cursors);
    return c.json(read.items);
  });

  app.get("/api/v1/scheduled_statuses/:id", readStatuses, async (c) => {
    const id = scheduledId(c);
    const row = await command(() => findScheduledStatus(c.get("ctx").database.db, me(c), id));
    return await one(c, row);
  });

  app.on(["PUT", "PATCH"], "/api/v1/scheduled_statuses/:id", writeStatuses, async (c) => {
    const id = scheduledId(c);
    const { db } = c.get("ctx").database;
    const raw = readString(await params(c), "scheduled_at", { maxLength: 100 });
    if (raw === undefined) {
      return await one(
        c,
        await command(() => findScheduledStatus(db, me(c), id)),
      );
    }
    const at = new Date(raw);
    if (Number.isNaN(at.getTime())) {
      await command(() => findScheduledStatus(db, me(c), id));
      throw validationFailed("Scheduled at is invalid");
    }
    return await one(c, await command(() => rescheduleStatus(db, me(c), id, at)));
  });

  app.delete("/api/v1/scheduled_statuses/:id", writeStatuses, async (c) => {
    const id = scheduledId(c);
    await command(() => cancelScheduledStatus(c.get("ctx").database.db, me(c), id));
    return c.json({});
  });
  return app;
}
