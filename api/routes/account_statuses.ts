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
import { setLinkHeader } from "../pagination.ts";
import { readAccountStatuses } from "../reads/account_statuses.ts";
import { accountFromPath, scopesIfToken, viewerAccountId } from "./accounts_access.ts";

/** The account statuses route, mounted at the root of the app. */
export function accountStatusesRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(
    "/api/v1/accounts/:id{[0-9]+}/statuses",
    scopesIfToken("read:statuses"),
    async (c) => {
      const account = await accountFromPath(c);
      const viewer = viewerAccountId(c);
      const read = await readAccountStatuses(
        c.get("ctx"),
        account,
        viewer ? { accountId: viewer } : null,
        await params(c),
      );
      setLinkHeader(c, read.cursors);
      return c.json(read.items);
    },
  );

  return app;
}
