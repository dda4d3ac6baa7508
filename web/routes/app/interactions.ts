/**
 * The web app's actions on a post (design 35 §2.3), the action bar's and
 * the poll form's targets:
 * - POST /statuses/:id/{favourite,unfavourite,reblog,unreblog,bookmark,
 *   unbookmark,mute,unmute,pin,unpin}: the same commands as the API's
 *   POST /api/v1/statuses/:id/… (unreblog counted in the status-deletion
 *   bucket too, as DELETE-like writes are);
 * - POST /polls/:id/votes (`choices[]`), read by the API's reader;
 * - GET /statuses/:id/favourited_by and /reblogged_by: who did, the API's
 *   read (a post the viewer may not see is a 404 page), in
 *   interaction_lists.tsx.
 * Without the fragment header: 303 back to `return_to` (the page, at the
 * post's anchor), or with `?alert=<key>` when the command refused. With it:
 * the post's article as it now is, replacing the one on the page (the
 * article named by the `return_to` anchor, which is the boost's for a
 * boost), with the refusal's status and an announcement when refused.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { isId } from "../../../db/ids.ts";
import { RATE_LIMITS } from "../../../api/middleware/rate_limit.ts";
import { relationshipError } from "../../../api/routes/relationships.ts";
import { readVoteChoices } from "../../../api/routes/polls.ts";
import { readStatus } from "../../../api/reads/statuses.ts";
import { favourite, unfavourite } from "../../../actors/interactions/favourites.ts";
import { reblog, unreblog } from "../../../actors/interactions/reblogs.ts";
import { bookmark, unbookmark } from "../../../actors/interactions/bookmarks.ts";
import {
  muteConversation,
  unmuteConversation,
} from "../../../actors/interactions/conversation_mutes.ts";
import { pin, unpin } from "../../../actors/interactions/pins.ts";
import { VOTE_ERRORS, votePoll, VoteRefusedError } from "../../../actors/polls/vote.ts";
import type { AppContext } from "../../../context.ts";
import { html } from "hono/html";
import { StatusItem } from "../../pages/app/status.tsx";
import { type Refusal, refusalOf } from "../refusals.ts";
import { appPage, appReader } from "./session.tsx";
import { appInteractionListRoutes } from "./interaction_lists.tsx";
import { returnTo } from "./return_to.ts";
import { redirectAfterPost, redirectWithAlert, sendFragment, wantsFragment } from "./fragments.ts";

type Command = (ctx: AppContext, accountId: string, statusId: string) => Promise<unknown>;

/** The status commands of the action bar, by the path's last segment. */
const STATUS_ACTIONS: Record<string, Command> = {
  favourite,
  unfavourite,
  reblog: (ctx, me, id) => reblog(ctx, me, id, {}),
  unreblog,
  bookmark,
  unbookmark,
  mute: muteConversation,
  unmute: unmuteConversation,
  pin,
  unpin,
};

/** The alert key of a refusal (never the message itself: a URL carries no text of ours). */
function alertKey(refusal: Refusal, reasons: readonly string[] = []): string {
  if (reasons.includes(VOTE_ERRORS.expired)) return "vote_ended";
  if (refusal.status === 404) return "not_found";
  if (refusal.status === 403) return "not_allowed";
  return "invalid";
}

/** The refusal of a command's error, or null for a real failure. */
function refusalOfAction(error: unknown): { refusal: Refusal; reasons: string[] } | null {
  if (error instanceof VoteRefusedError) {
    return {
      refusal: { status: error.status, message: error.reasons.join(", ") },
      reasons: error.reasons,
    };
  }
  const refusal = refusalOf(relationshipError(error));
  return refusal ? { refusal, reasons: [] } : null;
}

/** The page a post leaves when taken back there (unbookmarked on /bookmarks…). */
const LEAVES: Record<string, string> = { unbookmark: "/bookmarks", unfavourite: "/favourites" };

/**
 * The fragment after an action: the article the form was in, as it now
 * is. The `return_to` anchor names it (`#status-<row id>`); without one, the
 * acted-on post's own article. On the page the post leaves (`leaves`), its
 * removal.
 */
async function articleFragment(
  c: Context<ApiEnv>,
  p: Params,
  statusId: string,
  refusal?: Refusal,
  leaves?: string,
): Promise<Response> {
  const back = returnTo(p, "/");
  const hash = back.indexOf("#");
  const anchor = hash < 0 ? "" : back.slice(hash + 1);
  const here = hash < 0 ? back : back.slice(0, hash);
  const rowId = /^status-(\d+)$/.exec(anchor)?.[1] ?? statusId;
  const { viewer } = await appReader(c);
  const gone = !refusal && leaves != null && here.split("?")[0] === leaves;
  const read = gone ? null : await readStatus(c.get("ctx"), viewer, rowId);
  const announce = refusal?.message ?? (gone ? "Removed from this page" : undefined);
  const status = refusal?.status ?? 200;
  if (!read) {
    // hono's html escapes what it interpolates.
    return await sendFragment(
      c,
      html`<div data-remove="status-${rowId}" data-announce="${announce ?? ""}"></div>`,
      status,
    );
  }
  const article = StatusItem({ status: read.status, viewer, here, replace: true });
  return await sendFragment(c, article, status);
}

/** Runs one action and answers it (see the module's comment). */
async function answerAction(
  c: Context<ApiEnv>,
  statusId: string,
  run: (p: Params) => Promise<unknown>,
  leaves?: string,
): Promise<Response> {
  const p = await params(c);
  const back = returnTo(p, "/");
  try {
    await run(p);
  } catch (error) {
    const refused = refusalOfAction(error);
    if (!refused) throw error;
    if (wantsFragment(c)) return await articleFragment(c, p, statusId, refused.refusal);
    return redirectWithAlert(c, back, alertKey(refused.refusal, refused.reasons));
  }
  if (wantsFragment(c)) return await articleFragment(c, p, statusId, undefined, leaves);
  return redirectAfterPost(c, back);
}

/** The id of a path parameter; anything that cannot be one is answered as not found. */
function pathId(c: Context<ApiEnv>): string | null {
  const id = c.req.param("id");
  return id && isId(id) ? id : null;
}

export function appInteractionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  for (const [action, command] of Object.entries(STATUS_ACTIONS)) {
    const gate = action === "unreblog"
      ? appPage({ extraLimit: RATE_LIMITS.statusDeletions })
      : appPage();
    app.post(`/statuses/:id{[0-9]+}/${action}`, gate, async (c) => {
      const id = pathId(c)!;
      const ctx = c.get("ctx");
      const me = c.get("appSession")!.user.accountId;
      return await answerAction(c, id, () => command(ctx, me, id), LEAVES[action]);
    });
  }

  app.route("/", appInteractionListRoutes());

  app.post("/polls/:id{[0-9]+}/votes", appPage(), async (c) => {
    const pollId = pathId(c)!;
    const ctx = c.get("ctx");
    const me = c.get("appSession")!.user.accountId;
    // The poll's post is the article of the `return_to` anchor (articleFragment).
    return await answerAction(c, "", async (p) => {
      const choices = readVoteChoices(p) ?? [];
      await votePoll(ctx, { accountId: me, pollId, choices });
    });
  });

  return app;
}
