/**
 * The signed-in thread page, GET /@acct/:id (through signedInBranch: a
 * visitor, or an ActivityPub request, gets the public page and the Note).
 * It reads through api/reads/statuses.ts readThread, the function of GET
 * /api/v1/statuses/:id/context: the viewer's visible statuses with
 * signed-in limits, the `thread` filters, held replies as the Status entity
 * shows them, remote statuses at /@user@domain/:id, a missing parent fetched
 * and the remote replies' refresh started. A path whose handle is not the
 * author's redirects (301) to the right one; a status the viewer may not
 * see is a 404 page.
 *
 * With the fragment header (the script polling a remote thread's refresh)
 * the answer is the replies section and the refresh line alone: replaced,
 * or the line removed once the crawl is over.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { isId } from "../../../db/ids.ts";
import { findVisibleStatus } from "../../../db/queries/visibility.ts";
import { readThread } from "../../../api/reads/statuses.ts";
import { RETRY_SECONDS } from "../../../federation/remote/replies_crawl.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { RefreshLine, Replies, replyDepths, Thread } from "../../pages/app/thread.tsx";
import { sendFragment, wantsFragment } from "./fragments.ts";
import { statusPath } from "../../pages/status/links.ts";
import { appReader, sendAppNotFound, sendAppPage } from "./session.tsx";

const NOT_FOUND = "This post does not exist, or you may not see it.";
import { signedInBranch } from "./branch.ts";
import { hereWith } from "./return_to.ts";

/** The thread page of status `:id` for the signed-in viewer. */
async function threadPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { viewer } = await appReader(c);
  const id = c.req.param("id")!;
  if (!isId(id)) return await sendAppNotFound(c, NOT_FOUND);
  const row = await findVisibleStatus(ctx.database.db, viewer.accountId, id);
  if (!row) return await sendAppNotFound(c, NOT_FOUND);
  const thread = await readThread(ctx, { accountId: viewer.accountId }, row);
  if (!thread.status) return await sendAppNotFound(c, NOT_FOUND);
  const canonical = statusPath(thread.status);
  if (new URL(c.req.url).pathname !== canonical) return c.redirect(canonical, 301);
  const account = thread.status.account;
  const props = {
    status: thread.status,
    ancestors: thread.ancestors,
    descendants: thread.descendants,
    refresh: thread.refresh,
    retrySeconds: RETRY_SECONDS,
    viewer,
    here: hereWith(c.req.url),
    domain: account.acct.includes("@") ? account.acct.split("@")[1] : null,
  };
  if (wantsFragment(c)) {
    return await sendFragment(
      c,
      <>
        <Replies {...props} depths={replyDepths(props.status.id, props.descendants)} fragment />
        <RefreshLine {...props} fragment />
      </>,
    );
  }
  return await sendAppPage(
    c,
    <AppLayout
      title={`Post by @${account.acct}`}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      notice={c.req.query("notice")}
      alert={c.req.query("alert")}
    >
      <Thread {...props} />
    </AppLayout>,
  );
}

export function appThreadRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/:handle{@[^/]+}/:id{[0-9]{1,19}}", signedInBranch(threadPage));
  return app;
}
