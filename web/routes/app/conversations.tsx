/**
 * The web app's conversations (design 35 §2.5, §11.2): GET /conversations
 * (the API's read, 20 a page with its cursors): participants, the last
 * post's words linking to its thread, an unread mark; POST
 * /conversations/:id/read, /unread and /delete, the API's commands (someone
 * else's conversation is not found). Opening a thread marks nothing read:
 * the explicit button keeps GETs free of that write. Without the fragment
 * header: 303 back; with it: the row replaced, or removed after a delete.
 */
import { type Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, readPageParams } from "../../../api/pagination.ts";
import { readConversations } from "../../../api/reads/collections.ts";
import {
  type ConversationJson,
  serializeConversations,
} from "../../../api/entities/conversation.ts";
import {
  markConversationRead,
  markConversationUnread,
  removeConversation,
} from "../../../actors/timelines/conversations.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { Pager } from "../../pages/app/pager.tsx";
import { CsrfField } from "../../pages/shell.tsx";
import { accountPath, statusPath } from "../../pages/status/links.ts";
import { appPage, appViewer, sendAppPage } from "./session.tsx";
import { hereWith, returnTo } from "./return_to.ts";
import { pagerLinks } from "./paging.ts";
import { redirectAfterPost, redirectWithAlert, sendFragment, wantsFragment } from "./fragments.ts";

const ConversationRow: FC<{
  conversation: ConversationJson;
  token: string;
  here: string;
  replace?: boolean;
}> = ({ conversation: cv, token, here, replace }) => {
  const last = cv.last_status;
  const words = last ? (last.spoiler_text || htmlToText(last.content).trim()).slice(0, 160) : "";
  return (
    <li
      class="conversation"
      id={`conversation-${cv.id}`}
      data-replace={replace ? `conversation-${cv.id}` : undefined}
    >
      <p>
        {cv.unread ? <strong class="badge">Unread</strong> : null} {cv.accounts.map((a, i) => (
          <>
            {i ? ", " : "With "}
            <a href={accountPath(a)}>{a.display_name || a.username}</a>
          </>
        ))}
      </p>
      {last
        ? (
          <p>
            <a href={statusPath(last)}>{words || "A post"}</a>
          </p>
        )
        : null}
      <form method="post" class="actions" data-enhance>
        <CsrfField token={token} />
        <input type="hidden" name="return_to" value={here} />
        {cv.unread
          ? <button type="submit" formaction={`/conversations/${cv.id}/read`}>Mark as read</button>
          : (
            <button type="submit" formaction={`/conversations/${cv.id}/unread`}>
              Mark as unread
            </button>
          )}
        <button type="submit" class="secondary" formaction={`/conversations/${cv.id}/delete`}>
          Delete
        </button>
      </form>
    </li>
  );
};

async function conversationsPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const p = await params(c);
  const read = await readConversations(ctx, viewer.accountId, p);
  const here = hereWith(c.req.url);
  return await sendAppPage(
    c,
    <AppLayout
      title="Conversations"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="conversations"
      alert={c.req.query("alert")}
    >
      {read.items.length === 0
        ? <p>No private conversations yet.</p>
        : (
          <ul class="notifications" id="conversations">
            {read.items.map((cv) => (
              <ConversationRow conversation={cv} token={viewer.csrfToken} here={here} />
            ))}
          </ul>
        )}
      <Pager
        links={pagerLinks(
          c,
          readPageParams(p, PAGE_SIZES.conversations),
          PAGE_SIZES.conversations,
          read,
        )}
      />
    </AppLayout>,
  );
}

type Mark = typeof markConversationRead;

function conversationAction(mark: Mark | null) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const ctx = c.get("ctx");
    const viewer = appViewer(c);
    const id = c.req.param("id")!;
    const p = await params(c);
    const back = returnTo(p, "/conversations");
    let json: ConversationJson | undefined;
    try {
      if (mark) {
        const row = await mark(ctx.database.db, viewer.accountId, id);
        [json] = await serializeConversations(ctx, [row], viewer.accountId);
      } else {
        await removeConversation(ctx.database.db, viewer.accountId, id);
      }
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      if (!wantsFragment(c)) return redirectWithAlert(c, back, "not_found");
    }
    if (!wantsFragment(c)) return redirectAfterPost(c, back);
    if (!json) return await sendFragment(c, <div data-remove={`conversation-${id}`}></div>);
    return await sendFragment(
      c,
      <ConversationRow conversation={json} token={viewer.csrfToken} here={back} replace />,
    );
  };
}

export function appConversationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/conversations", appPage(), conversationsPage);
  app.post("/conversations/:id{[0-9]+}/read", appPage(), conversationAction(markConversationRead));
  app.post(
    "/conversations/:id{[0-9]+}/unread",
    appPage(),
    conversationAction(markConversationUnread),
  );
  app.post("/conversations/:id{[0-9]+}/delete", appPage(), conversationAction(null));
  return app;
}
