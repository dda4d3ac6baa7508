/**
 * GET /statuses/:id/favourited_by and /reblogged_by in the web app: the
 * accounts GET /api/v1/statuses/:id/favourited_by (reblogged_by) answers
 * for the viewer, 40 a page with its cursors; a post the viewer may not see
 * is a 404 page, as the API's 404.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, readPageParams } from "../../../api/pagination.ts";
import { type InteractionKind, readInteractionAccounts } from "../../../api/reads/accounts.ts";
import { readStatus } from "../../../api/reads/statuses.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { AccountRow } from "../../pages/app/accounts_list.tsx";
import { Pager } from "../../pages/app/pager.tsx";
import { statusPath } from "../../pages/status/links.ts";
import { appPage, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { pagerLinks } from "./paging.ts";

const NOT_FOUND = "This post does not exist, or you may not see it.";

function interactionList(kind: InteractionKind) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const ctx = c.get("ctx");
    const viewer = appViewer(c);
    const read = await readStatus(ctx, viewer, c.req.param("id")!);
    if (!read) return await sendAppNotFound(c, NOT_FOUND);
    const p = await params(c);
    const page = await readInteractionAccounts(ctx, kind, read.row.id, viewer.accountId, p);
    return await sendAppPage(
      c,
      <AppLayout
        title={kind === "favourited_by" ? "Favourited by" : "Boosted by"}
        instanceTitle={ctx.config.instance.title}
        viewer={viewer}
      >
        <p>
          <a href={statusPath(read.status)}>Back to the post</a>
        </p>
        {page.items.length === 0 ? <p>Nobody yet.</p> : (
          <ul class="accounts">
            {page.items.map((account) => {
              // Hono's precompiled JSX would print a `key` as an attribute.
              // deno-lint-ignore jsx-key
              return <AccountRow account={account} />;
            })}
          </ul>
        )}
        <Pager
          links={pagerLinks(c, readPageParams(p, PAGE_SIZES.accounts), PAGE_SIZES.accounts, page)}
        />
      </AppLayout>,
    );
  };
}

export function appInteractionListRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/statuses/:id{[0-9]+}/favourited_by", appPage(), interactionList("favourited_by"));
  app.get("/statuses/:id{[0-9]+}/reblogged_by", appPage(), interactionList("reblogged_by"));
  return app;
}
