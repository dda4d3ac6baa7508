/**
 * /settings/interaction_requests: the favourites, replies and boosts of the
 * signed-in user's posts that wait for their approval (issue 34), newest
 * first, at most 40, each with Approve and Reject (the same commands as
 * the API's interaction requests). Someone else's or a decided request
 * answers 404.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { desc } from "drizzle-orm";
import type { ApiEnv } from "../../../api/env.ts";
import { acceptRequest, rejectRequest } from "../../../actors/interactions/requests.ts";
import { pendingRequestsPage } from "../../../db/queries/interaction_requests.ts";
import { interactionRequests } from "../../../db/schema/mod.ts";
import { statusRows } from "../../../api/entities/status_hydration.ts";
import { loadAccountEntities } from "../../../api/entities/account.ts";
import { isId } from "../../../db/ids.ts";
import { NotFoundError } from "../../../model/errors.ts";
import {
  InteractionRequestsPage,
  type RequestEntry,
} from "../../pages/settings/interaction_requests.tsx";
import { MessagePage } from "../../pages/auth/layout.tsx";
import { sendAccountPage } from "../auth/page.ts";
import { settingsSession, userPage } from "./session.ts";

const PAGE = "/settings/interaction_requests";
const NOTICES: Record<string, string> = {
  authorized: "Approved: everyone who may see it now sees it.",
  rejected: "Rejected: it is gone.",
};

function notFound(c: Context<ApiEnv>) {
  return sendAccountPage(
    c,
    <MessagePage
      title="Not found"
      instanceTitle={c.get("ctx").config.instance.title}
      text="There is nothing like that waiting for your approval."
      alert
    />,
    404,
  );
}

/** The page's entries: the requests with who asked, the post and the reply. */
async function entries(c: Context<ApiEnv>, accountId: string): Promise<RequestEntry[]> {
  const { database, config } = c.get("ctx");
  const rows = await pendingRequestsPage(
    database.db,
    accountId,
    {
      types: ["favourite", "reply", "reblog"],
    },
    { where: undefined, order: desc(interactionRequests.id) },
    40,
  );
  const ids = rows.flatMap((r) =>
    r.type === "reply" && r.statusId ? [r.targetStatusId, r.statusId] : [r.targetStatusId]
  );
  const [statuses, accounts] = await Promise.all([
    statusRows(database.db, [...new Set(ids)]),
    loadAccountEntities(database.db, config, rows.map((r) => r.accountId)),
  ]);
  const statusById = new Map(statuses.map((s) => [s.id, s]));
  const acctById = new Map(accounts.map((a) => [a.id, a.acct]));
  return rows.flatMap((r) => {
    const target = statusById.get(r.targetStatusId);
    const acct = acctById.get(r.accountId);
    if (!target || !acct) return [];
    const reply = r.statusId && r.type === "reply" ? statusById.get(r.statusId) : undefined;
    return [{
      id: r.id,
      type: r.type,
      acct,
      targetUrl: target.url ?? target.uri,
      targetContent: target.content,
      replyContent: reply?.content ?? null,
    }];
  });
}

export function interactionRequestSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use(PAGE, userPage());
  app.use(`${PAGE}/*`, userPage());

  app.get(PAGE, async (c) => {
    const session = settingsSession(c);
    return await sendAccountPage(
      c,
      <InteractionRequestsPage
        instanceTitle={c.get("ctx").config.instance.title}
        viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
        requests={await entries(c, session.user.accountId)}
        notice={NOTICES[c.req.query("notice") ?? ""]}
      />,
    );
  });

  for (
    const [action, command, notice] of [
      ["authorize", acceptRequest, "authorized"],
      ["reject", rejectRequest, "rejected"],
    ] as const
  ) {
    app.post(`${PAGE}/:id/${action}`, async (c) => {
      const id = c.req.param("id");
      if (!isId(id)) return await notFound(c);
      try {
        await command(c.get("ctx"), settingsSession(c).user.accountId, id);
      } catch (error) {
        if (error instanceof NotFoundError) return await notFound(c);
        throw error;
      }
      return c.redirect(`${PAGE}?notice=${notice}`, 303);
    });
  }
  return app;
}
