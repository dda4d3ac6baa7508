/**
 * Discovery: follow suggestions and the profile directory (trends are in
 * trends.ts, mounted from here).
 *
 * - GET /api/v2/suggestions (user + read or read:accounts) → Suggestion[]
 * - GET /api/v1/suggestions (deprecated; same) → Account[]
 *   (both: `limit` 40 by default, 80 at most; no paging, as Mastodon)
 * - DELETE /api/v1/suggestions/:account_id (user + write:accounts, as
 *   Mastodon's controller asks; the API spec's `read` would let a read-only
 *   token change state) → {} always, also for an unknown id; the account is
 *   never suggested to this user again.
 * - GET /api/v1/directory (public) → Account[]: `order` active (default) or
 *   new, `local`, `offset`, `limit` (40 by default, 80 at most), with a
 *   `Link` header by offset. Only accounts that opted in to discovery.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { clampLimit, PAGE_SIZES } from "../pagination.ts";
import { readOffset, setOffsetLinks } from "../offset_pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { serializeSuggestions } from "../entities/suggestion.ts";
import { viewerAccountId } from "./accounts_access.ts";
import { trendRoutes } from "./trends.ts";
import { suggestionsFor } from "../../db/queries/suggestions.ts";
import { directoryPage } from "../../db/queries/directory.ts";
import { dismissSuggestion } from "../../actors/discovery/suggestions.ts";

/** The discovery routes (trends, suggestions, directory), mounted at the root of the app. */
export function discoveryRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.route("/", trendRoutes());

  const readSuggestions = requireUser("read", "read:accounts");
  const suggestions = async (c: Context<ApiEnv>) => {
    const { database } = c.get("ctx");
    const limit = clampLimit((await params(c)).limit, PAGE_SIZES.accounts);
    return await suggestionsFor(database, viewerAccountId(c)!, limit);
  };
  app.get("/api/v2/suggestions", readSuggestions, async (c) => {
    const { database, mediaUrls } = c.get("ctx");
    return c.json(await serializeSuggestions(database.db, mediaUrls, await suggestions(c)));
  });
  app.get("/api/v1/suggestions", readSuggestions, async (c) => {
    const { database, mediaUrls } = c.get("ctx");
    const ids = (await suggestions(c)).map((s) => s.accountId);
    return c.json(await loadAccountEntities(database.db, mediaUrls, ids));
  });
  app.delete(
    "/api/v1/suggestions/:account_id",
    requireUser("write:accounts"),
    async (c) => {
      const { db } = c.get("ctx").database;
      await dismissSuggestion(db, viewerAccountId(c)!, c.req.param("account_id"));
      return c.json({});
    },
  );

  app.get("/api/v1/directory", async (c) => {
    const { database, mediaUrls } = c.get("ctx");
    const p = await params(c);
    const page = { offset: readOffset(p), limit: clampLimit(p.limit, PAGE_SIZES.accounts) };
    const ids = await directoryPage(database, viewerAccountId(c), {
      order: readString(p, "order") === "new" ? "new" : "active",
      local: readBoolean(p, "local") ?? false,
      ...page,
    });
    setOffsetLinks(c, page.offset, page.limit, ids.length);
    return c.json(await loadAccountEntities(database.db, mediaUrls, ids));
  });
  return app;
}
