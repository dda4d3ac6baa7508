/**
 * Filters v1 (deprecated since Mastodon 4.0; user tokens, read:filters /
 * write:filters), each a keyword of a v2 filter (actors/filters/v1.ts):
 * - GET /api/v1/filters → V1Filter[]
 * - POST /api/v1/filters: phrase, context[], irreversible, whole_word,
 *   expires_in → V1Filter
 * - GET /api/v1/filters/:id → V1Filter
 * - PUT /api/v1/filters/:id: the same → V1Filter
 * - DELETE /api/v1/filters/:id → {} (the keyword only)
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { type Params, params } from "../params.ts";
import { readBoolean } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { v1FilterEntity } from "../entities/filter_v1.ts";
import {
  createV1Filter,
  deleteV1Filter,
  findOwnV1Filter,
  updateV1Filter,
  type V1FilterInput,
  v1FiltersOf,
} from "../../actors/filters/v1.ts";
import { viewerAccountId } from "./accounts_access.ts";
import { pathId, readContexts, readExpiresIn, readText, run } from "./filter_params.ts";

function v1Input(p: Params): V1FilterInput {
  return {
    phrase: readText(p, "phrase"),
    context: readContexts(p),
    irreversible: readBoolean(p, "irreversible"),
    wholeWord: readBoolean(p, "whole_word"),
    expiresIn: readExpiresIn(p),
  };
}

/** The v1 filter routes, mounted at the root of the app. */
export function v1FilterRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireUser("read:filters");
  const write = requireUser("write:filters");

  app.get("/api/v1/filters", read, async (c) => {
    const found = await v1FiltersOf(c.get("ctx").database.db, viewerAccountId(c)!);
    return c.json(found.map(v1FilterEntity));
  });

  app.post("/api/v1/filters", write, async (c) => {
    const input = v1Input(await params(c));
    const found = await run(() =>
      createV1Filter(c.get("ctx").database.db, viewerAccountId(c)!, input)
    );
    return c.json(v1FilterEntity(found));
  });

  app.get("/api/v1/filters/:id{[0-9]+}", read, async (c) => {
    const id = pathId(c);
    const found = await run(() =>
      findOwnV1Filter(c.get("ctx").database.db, viewerAccountId(c)!, id)
    );
    return c.json(v1FilterEntity(found));
  });

  app.on(["PUT", "PATCH"], "/api/v1/filters/:id{[0-9]+}", write, async (c) => {
    const id = pathId(c);
    const input = v1Input(await params(c));
    const found = await run(() =>
      updateV1Filter(c.get("ctx").database.db, viewerAccountId(c)!, id, input)
    );
    return c.json(v1FilterEntity(found));
  });

  app.delete("/api/v1/filters/:id{[0-9]+}", write, async (c) => {
    const id = pathId(c);
    await run(() => deleteV1Filter(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json({});
  });

  return app;
}
