/**
 * Filters v2 (user tokens; read:filters / write:filters):
 * - GET /api/v2/filters → Filter[] (oldest first, expired ones included)
 * - POST /api/v2/filters: title, context[], filter_action, expires_in,
 *   keywords_attributes[][keyword|whole_word] → Filter
 * - GET /api/v2/filters/:id → Filter
 * - PUT /api/v2/filters/:id: the same, keywords_attributes[][id|_destroy]
 *   changing or removing keywords → Filter
 * - DELETE /api/v2/filters/:id → {}
 * - GET/POST /api/v2/filters/:filter_id/keywords (keyword, whole_word) →
 *   FilterKeyword[] / FilterKeyword
 * - GET/PUT/DELETE /api/v2/filters/keywords/:id → FilterKeyword / {}
 * - GET/POST /api/v2/filters/:filter_id/statuses (status_id) →
 *   FilterStatus[] / FilterStatus
 * - GET/DELETE /api/v2/filters/statuses/:id → FilterStatus / {}
 *
 * Someone else's filter, keyword or status id is 404 "Record not found",
 * like an unknown one. How filters apply: api/entities/status_filters.ts.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { filterWithRulesEntity } from "../entities/filter.ts";
import { filterKeywordEntity } from "../entities/filter_keyword.ts";
import { filterStatusEntity } from "../entities/filter_status.ts";
import { isId } from "../../db/ids.ts";
import {
  createFilter,
  deleteFilter,
  filtersOf,
  findOwnFilter,
  updateFilter,
} from "../../actors/filters/filters.ts";
import {
  addKeyword,
  deleteKeyword,
  findOwnKeyword,
  keywordsOf,
  updateKeyword,
} from "../../actors/filters/keywords.ts";
import {
  addFilterStatus,
  deleteFilterStatus,
  filterStatusesOf,
  findOwnFilterStatus,
} from "../../actors/filters/statuses.ts";
import { viewerAccountId } from "./accounts_access.ts";
import { pathId, readFilterInput, readText, run } from "./filter_params.ts";

const BASE = "/api/v2/filters";

type Gate = ReturnType<typeof requireUser>;

/** A keyword's parameters (create and update). */
function readKeyword(p: Params) {
  return { keyword: readText(p, "keyword"), wholeWord: readBoolean(p, "whole_word") };
}

/** Keywords and statuses by their own id. */
function ruleRoutes(app: Hono<ApiEnv>, read: Gate, write: Gate): void {
  app.get(`${BASE}/keywords/:id{[0-9]+}`, read, async (c) => {
    const id = pathId(c);
    const row = await run(() => findOwnKeyword(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json(filterKeywordEntity(row));
  });

  app.on(["PUT", "PATCH"], `${BASE}/keywords/:id{[0-9]+}`, write, async (c) => {
    const id = pathId(c);
    const input = readKeyword(await params(c));
    const row = await run(() =>
      updateKeyword(c.get("ctx").database.db, viewerAccountId(c)!, id, input)
    );
    return c.json(filterKeywordEntity(row));
  });

  app.delete(`${BASE}/keywords/:id{[0-9]+}`, write, async (c) => {
    const id = pathId(c);
    await run(() => deleteKeyword(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json({});
  });

  app.get(`${BASE}/statuses/:id{[0-9]+}`, read, async (c) => {
    const id = pathId(c);
    const row = await run(() =>
      findOwnFilterStatus(c.get("ctx").database.db, viewerAccountId(c)!, id)
    );
    return c.json(filterStatusEntity(row));
  });

  app.delete(`${BASE}/statuses/:id{[0-9]+}`, write, async (c) => {
    const id = pathId(c);
    await run(() => deleteFilterStatus(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json({});
  });
}

/** The filters themselves. */
function filterCrudRoutes(app: Hono<ApiEnv>, read: Gate, write: Gate): void {
  app.get(BASE, read, async (c) => {
    const found = await filtersOf(c.get("ctx").database.db, viewerAccountId(c)!);
    return c.json(found.map(filterWithRulesEntity));
  });

  app.post(BASE, write, async (c) => {
    const input = readFilterInput(await params(c));
    const found = await run(() =>
      createFilter(c.get("ctx").database.db, viewerAccountId(c)!, input)
    );
    return c.json(filterWithRulesEntity(found));
  });

  app.get(`${BASE}/:id{[0-9]+}`, read, async (c) => {
    const id = pathId(c);
    const found = await run(() => findOwnFilter(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json(filterWithRulesEntity(found));
  });

  app.on(["PUT", "PATCH"], `${BASE}/:id{[0-9]+}`, write, async (c) => {
    const id = pathId(c);
    const input = readFilterInput(await params(c));
    const found = await run(() =>
      updateFilter(c.get("ctx").database.db, viewerAccountId(c)!, id, input)
    );
    return c.json(filterWithRulesEntity(found));
  });

  app.delete(`${BASE}/:id{[0-9]+}`, write, async (c) => {
    const id = pathId(c);
    await run(() => deleteFilter(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json({});
  });
}

/** The keywords and statuses of one filter. */
function filterRuleListRoutes(app: Hono<ApiEnv>, read: Gate, write: Gate): void {
  app.get(`${BASE}/:filter_id{[0-9]+}/keywords`, read, async (c) => {
    const id = pathId(c, "filter_id");
    const rows = await run(() => keywordsOf(c.get("ctx").database.db, viewerAccountId(c)!, id));
    return c.json(rows.map(filterKeywordEntity));
  });

  app.post(`${BASE}/:filter_id{[0-9]+}/keywords`, write, async (c) => {
    const id = pathId(c, "filter_id");
    const input = readKeyword(await params(c));
    const row = await run(() =>
      addKeyword(c.get("ctx").database.db, viewerAccountId(c)!, id, input)
    );
    return c.json(filterKeywordEntity(row));
  });

  app.get(`${BASE}/:filter_id{[0-9]+}/statuses`, read, async (c) => {
    const id = pathId(c, "filter_id");
    const rows = await run(() =>
      filterStatusesOf(c.get("ctx").database.db, viewerAccountId(c)!, id)
    );
    return c.json(rows.map(filterStatusEntity));
  });

  app.post(`${BASE}/:filter_id{[0-9]+}/statuses`, write, async (c) => {
    const id = pathId(c, "filter_id");
    const statusId = readString(await params(c), "status_id", { maxLength: 32 });
    const row = await run(() =>
      addFilterStatus(
        c.get("ctx").database.db,
        viewerAccountId(c)!,
        id,
        statusId && isId(statusId) ? statusId : null,
      )
    );
    return c.json(filterStatusEntity(row));
  });
}

/** The v2 filter routes, mounted at the root of the app. */
export function filterRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireUser("read:filters");
  const write = requireUser("write:filters");
  // Keywords and statuses by their own id first: `:id` below takes digits only anyway.
  ruleRoutes(app, read, write);
  filterCrudRoutes(app, read, write);
  filterRuleListRoutes(app, read, write);
  return app;
}
