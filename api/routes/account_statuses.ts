/**
 * GET /api/v1/accounts/:id/statuses (public; a token that comes along needs
 * read:statuses) → Status[] of one account as the viewer may see them, newest
 * first, 20 by default and 40 at most, with Link headers.
 *
 * Filters (Mastodon's AccountStatusesFilter): only_media, exclude_replies
 * (replies to others; a thread of one's own stays), exclude_reblogs,
 * exclude_direct (Mastodon 4.6: direct messages left out), pinned
 * (the account's pins), tagged (a hashtag name; an unknown one matches
 * nothing). Private and direct statuses appear only for viewers allowed to
 * see them; an account that blocks the viewer shows nothing.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../pagination.ts";
import { serializeStatuses } from "../entities/status.ts";
import { accountStatuses, tagsByName } from "../../db/queries/timelines.ts";
import { accountFromPath, scopesIfToken, viewerAccountId } from "./accounts_access.ts";

/** The account statuses route, mounted at the root of the app. */
export function accountStatusesRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(
    "/api/v1/accounts/:id{[0-9]+}/statuses",
    scopesIfToken("read:statuses"),
    async (c) => {
      const ctx = c.get("ctx");
      const account = await accountFromPath(c);
      const viewer = viewerAccountId(c);
      const p = await params(c);
      const page = readPageParams(p, PAGE_SIZES.statuses);
      if (account.suspended) return c.json([]);
      const tagged = readString(p, "tagged", { maxLength: 200 });
      let taggedId: string | null | undefined;
      if (tagged) {
        const found = await tagsByName(ctx.database.db, [tagged]);
        taggedId = [...found.values()][0]?.id ?? null;
      }
      const rows = await accountStatuses(ctx.database.db, account.id, viewer, {
        onlyMedia: readBoolean(p, "only_media") ?? false,
        excludeReplies: readBoolean(p, "exclude_replies") ?? false,
        excludeReblogs: readBoolean(p, "exclude_reblogs") ?? false,
        excludeDirect: readBoolean(p, "exclude_direct") ?? false,
        pinned: readBoolean(p, "pinned") ?? false,
        taggedId,
      }, page);
      const json = await serializeStatuses(
        ctx,
        rows,
        viewer ? { accountId: viewer } : null,
        undefined,
        { context: "account" },
      );
      setPaginationHeaders(c, rows, (row) => row.id);
      return c.json(json);
    },
  );

  return app;
}
