/**
 * Lists (user tokens):
 * - GET /api/v1/lists (read:lists) → List[]
 * - POST /api/v1/lists (write:lists): title, replies_policy, exclusive → List
 * - GET /api/v1/lists/:id (read:lists) → List
 * - PUT /api/v1/lists/:id (write:lists): title, replies_policy, exclusive → List
 * - DELETE /api/v1/lists/:id (write:lists) → {}
 * - GET /api/v1/lists/:id/accounts (read:lists) → Account[]: 40 by default,
 *   80 at most, `limit=0` for all; Link headers (`prev` by since_id)
 * - POST /api/v1/lists/:id/accounts (write:lists): account_ids[] → {}
 * - DELETE /api/v1/lists/:id/accounts (write:lists): account_ids[] → {}
 *
 * Someone else's list is 404 "Record not found", like a missing one. Adding
 * an account one does not follow is 404 too (Mastodon's documented answer),
 * adding one already there 422 "Validation failed: Account has already been
 * taken".
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readString, readStringArray } from "../readers.ts";
import { setLinkHeader } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { listEntity } from "../entities/list.ts";
import { isId } from "../../db/ids.ts";
import { readListMembers } from "../reads/accounts.ts";
import {
  addListAccounts,
  createList,
  deleteList,
  findOwnList,
  type ListInput,
  listsOf,
  removeListAccounts,
  updateList,
} from "../../actors/timelines/lists.ts";
import { NotFoundError } from "../../model/errors.ts";
import { viewerAccountId } from "./accounts_access.ts";

/** How many account ids one request may add or remove. */
export const MAX_LIST_ACCOUNT_IDS = 250;

const NOT_FOUND = "Record not found";

function listIdOf(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!id || !isId(id)) throw new ApiError(404, NOT_FOUND);
  return id;
}

/** Runs a list command, answering NotFoundError with 404 and ValidationError with 422. */
async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await withValidation(fn);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, NOT_FOUND);
    throw error;
  }
}

export function listInput(p: Params): ListInput {
  return {
    title: readString(p, "title", { allowBlank: true }),
    repliesPolicy: readString(p, "replies_policy", { allowBlank: true }),
    exclusive: readBoolean(p, "exclusive"),
  };
}

/** account_ids[]: ids that cannot exist make the whole request a 404, as an unknown one does. */
export function accountIds(p: Params): string[] {
  const ids = readStringArray(p, "account_ids", { maxItems: MAX_LIST_ACCOUNT_IDS }) ?? [];
  if (!ids.every((id) => isId(id))) throw new ApiError(404, NOT_FOUND);
  return ids;
}

/** The list routes, mounted at the root of the app. */
export function listRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireUser("read:lists");
  const write = requireUser("write:lists");

  app.get("/api/v1/lists", read, async (c) => {
    const rows = await listsOf(c.get("ctx").database.db, viewerAccountId(c)!);
    return c.json(rows.map(listEntity));
  });

  app.post("/api/v1/lists", write, async (c) => {
    const input = listInput(await params(c));
    const row = await run(() => createList(c.get("ctx").database.db, viewerAccountId(c)!, input));
    return c.json(listEntity(row));
  });

  app.get("/api/v1/lists/:id", read, async (c) => {
    const id = listIdOf(c);
    const row = await run(() => findOwnList(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json(listEntity(row));
  });

  app.on(["PUT", "PATCH"], "/api/v1/lists/:id", write, async (c) => {
    const id = listIdOf(c);
    const input = listInput(await params(c));
    const row = await run(() =>
      updateList(c.get("ctx").database.db, viewerAccountId(c)!, id, input)
    );
    return c.json(listEntity(row));
  });

  app.delete("/api/v1/lists/:id", write, async (c) => {
    const id = listIdOf(c);
    await run(() => deleteList(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json({});
  });

  app.get("/api/v1/lists/:id/accounts", read, async (c) => {
    const ctx = c.get("ctx");
    const id = listIdOf(c);
    await run(() => findOwnList(ctx.database.db, viewerAccountId(c)!, id));
    const read = await readListMembers(ctx, id, await params(c));
    setLinkHeader(c, read.cursors);
    return c.json(read.items);
  });

  app.post("/api/v1/lists/:id/accounts", write, async (c) => {
    const id = listIdOf(c);
    const ids = accountIds(await params(c));
    await run(() => addListAccounts(c.get("ctx").database.db, viewerAccountId(c)!, id, ids));
    return c.json({});
  });

  app.delete("/api/v1/lists/:id/accounts", write, async (c) => {
    const id = listIdOf(c);
    // Ids that cannot exist are simply not members.
    const ids = (readStringArray(await params(c), "account_ids", {
      maxItems: MAX_LIST_ACCOUNT_IDS,
    }) ?? []).filter((id) => isId(id));
    await run(() => removeListAccounts(c.get("ctx").database.db, viewerAccountId(c)!, id, ids));
    return c.json({});
  });

  return app;
}
