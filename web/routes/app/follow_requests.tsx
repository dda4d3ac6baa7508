/**
 * The web app's follow requests (design 35 §2.5): GET /follow_requests (the
 * API's read, 40 a page) with Accept and Reject on each row; POST
 * /follow_requests/:account_id/authorize and /reject, the API's commands.
 * Without the fragment header: 303 back (an alert when the request is gone);
 * with it: the row's removal.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, readPageParams } from "../../../api/pagination.ts";
import { readFollowRequests } from "../../../api/reads/accounts.ts";
import { relationshipError } from "../../../api/routes/relationships.ts";
import {
  authorizeFollowRequest,
  rejectFollowRequest,
} from "../../../actors/relationships/follows.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { AccountRow } from "../../pages/app/accounts_list.tsx";
import { Pager } from "../../pages/app/pager.tsx";
import { CsrfField } from "../../pages/shell.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appViewer, sendAppPage } from "./session.tsx";
import { hereWith, returnTo } from "./return_to.ts";
import { pagerLinks } from "./paging.ts";
import { redirectAfterPost, redirectWithAlert, sendFragment, wantsFragment } from "./fragments.ts";

async function requestsPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const p = await params(c);
  const read = await readFollowRequests(ctx, viewer.accountId, p);
  const here = hereWith(c.req.url);
  return await sendAppPage(
    c,
    <AppLayout
      title="Follow requests"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="follow_requests"
      notice={c.req.query("notice")}
      alert={c.req.query("alert")}
    >
      {read.items.length === 0
        ? <p>Nobody is waiting for your approval to follow you.</p>
        : (
          <ul class="accounts" id="follow-requests">
            {read.items.map((account) => (
              <AccountRow account={account} id={`request-${account.id}`}>
                <form method="post" class="actions" data-enhance>
                  <CsrfField token={viewer.csrfToken} />
                  <input type="hidden" name="return_to" value={here} />
                  <button type="submit" formaction={`/follow_requests/${account.id}/authorize`}>
                    Accept
                  </button>
                  <button
                    type="submit"
                    class="secondary"
                    formaction={`/follow_requests/${account.id}/reject`}
                  >
                    Reject
                  </button>
                </form>
              </AccountRow>
            ))}
          </ul>
        )}
      <Pager
        links={pagerLinks(c, readPageParams(p, PAGE_SIZES.accounts), PAGE_SIZES.accounts, read)}
      />
    </AppLayout>,
  );
}

function decide(command: typeof authorizeFollowRequest, done: string) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const requester = c.req.param("account_id")!;
    const p = await params(c);
    const back = returnTo(p, "/follow_requests");
    try {
      await command(c.get("ctx"), appViewer(c).accountId, requester);
    } catch (error) {
      if (!refusalOf(relationshipError(error))) throw error;
      // Already decided, withdrawn, or never there: the row goes all the same.
      if (!wantsFragment(c)) return redirectWithAlert(c, back, "not_found");
    }
    if (wantsFragment(c)) {
      return await sendFragment(
        c,
        <div data-remove={`request-${requester}`} data-announce={done}></div>,
      );
    }
    return redirectAfterPost(c, back);
  };
}

export function appFollowRequestRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/follow_requests", appPage(), requestsPage);
  app.post(
    "/follow_requests/:account_id{[0-9]+}/authorize",
    appPage(),
    decide(authorizeFollowRequest, "Follow request accepted"),
  );
  app.post(
    "/follow_requests/:account_id{[0-9]+}/reject",
    appPage(),
    decide(rejectFollowRequest, "Follow request rejected"),
  );
  return app;
}
