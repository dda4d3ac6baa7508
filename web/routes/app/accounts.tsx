/**
 * The web app's accounts (design 35 §2.4):
 * - GET /@acct (signedInBranch: a visitor or an ActivityPub request gets the
 *   public profile and the actor): a local or known remote account, as the
 *   Account entity shows it to the viewer (no WebFinger: an unknown handle
 *   says so and offers search), the relationship bar, and its posts as the
 *   viewer may see them (GET /api/v1/accounts/:id/statuses' query and
 *   serializer; replies left out, as Mastodon's Posts tab).
 * - POST /accounts/:id/{follow,unfollow,unmute,unblock}: the API's commands
 *   and option readers (relationships.ts); GET /accounts/:id/mute and
 *   /block: a confirmation (the mute's duration and "Hide notifications"),
 *   POST to do it. Without the fragment header: 303 to `return_to` (else the
 *   profile) with a notice, or an alert key when refused; with it: the
 *   relationship bar replacing the page's.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { PAGE_SIZES, readPageParams } from "../../../api/pagination.ts";
import { parseAcct } from "../../../api/routes/accounts.ts";
import {
  readFollowOptions,
  readMuteOptions,
  relationshipError,
} from "../../../api/routes/relationships.ts";
import { loadAccountEntitiesFor } from "../../../api/entities/feature_approval.ts";
import type { Account } from "../../../api/entities/account.ts";
import { loadRelationships } from "../../../api/entities/relationship.ts";
import { isId } from "../../../db/ids.ts";
import {
  filterViewableAccountIds,
  findViewableAccountByHandle,
} from "../../../db/queries/accounts.ts";
import { readAccountStatuses } from "../../../api/reads/account_statuses.ts";
import { follow, unfollow } from "../../../actors/relationships/follows.ts";
import { block, unblock } from "../../../actors/relationships/blocks.ts";
import { mute, unmute } from "../../../actors/relationships/mutes.ts";
import type { AppContext } from "../../../context.ts";
import { AppLayout, type AppViewer } from "../../pages/app/layout.tsx";
import { AppProfile, ProfileHeader } from "../../pages/app/profile.tsx";
import { RelationshipBar } from "../../pages/app/relationship.tsx";
import { ConfirmPage } from "../../pages/app/confirm.tsx";
import { Timeline } from "../../pages/app/timeline.tsx";
import { AccountRow } from "../../pages/app/accounts_list.tsx";
import { Pager } from "../../pages/app/pager.tsx";
import { readFollowList } from "../../../api/reads/accounts.ts";
import { accountPath } from "../../pages/status/links.ts";
import { refusalOf } from "../refusals.ts";
import { appPage, appReader, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { signedInBranch } from "./branch.ts";
import { hereWith, returnTo } from "./return_to.ts";
import { pagerLinks } from "./paging.ts";
import { redirectAfterPost, redirectWithAlert, sendFragment, wantsFragment } from "./fragments.ts";

const NOT_FOUND = "This account does not exist, or is not known here.";
/** Longer handles are not looked up (as the API's lookup). */
const MAX_ACCT_LENGTH = 1024;

/** The account entity of `id` as `viewer` sees it, or null when it cannot be viewed. */
export async function viewableAccount(
  ctx: AppContext,
  viewer: string,
  id: string | undefined,
): Promise<Account | null> {
  if (!id || !isId(id)) return null;
  const [known] = await filterViewableAccountIds(ctx.database, [id]);
  if (!known) return null;
  const [account] = await loadAccountEntitiesFor(ctx.database.db, ctx.mediaUrls, [id], viewer);
  return account ?? null;
}

/**
 * The account's posts as `viewer` may see them, replies to others left out
 * (Mastodon's Posts tab): GET /api/v1/accounts/:id/statuses' read with
 * `exclude_replies`.
 */
async function profilePosts(ctx: AppContext, viewer: string, account: Account, p: Params) {
  const query = { ...p, exclude_replies: "true" };
  const read = await readAccountStatuses(
    ctx,
    { id: account.id, suspended: !!account.suspended },
    { accountId: viewer },
    query,
  );
  return { page: readPageParams(query, PAGE_SIZES.statuses), read };
}

/** The account of the `:handle` path (`@name` or `@name@domain`), as the viewer sees it. */
async function accountOfHandle(c: Context<ApiEnv>, viewer: string) {
  const ctx = c.get("ctx");
  const handle = decodeURIComponent(c.req.param("handle")!);
  const parsed = handle.length <= MAX_ACCT_LENGTH ? parseAcct(handle, ctx.config.domain) : null;
  const found = parsed
    ? await findViewableAccountByHandle(ctx.database, parsed.username, parsed.domain)
    : null;
  const account = found ? await viewableAccount(ctx, viewer, found.id) : null;
  return { handle, found, account };
}

async function profilePage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { viewer } = await appReader(c);
  const { handle, account } = await accountOfHandle(c, viewer.accountId);
  if (!account) return await profileNotFound(c, handle);
  const own = account.id === viewer.accountId;
  const [relationship] = own
    ? [null]
    : await loadRelationships(ctx.database.db, viewer.accountId, [account.id]);
  const p = await params(c);
  const here = hereWith(c.req.url);
  const posts = account.suspended ? null : await profilePosts(ctx, viewer.accountId, account, p);
  return await sendAppPage(
    c,
    <AppLayout
      title={account.display_name || account.username}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current={own ? "profile" : undefined}
      notice={c.req.query("notice")}
      alert={c.req.query("alert")}
    >
      <AppProfile
        header={
          <ProfileHeader
            account={account}
            relationship={relationship}
            viewer={viewer}
            here={here}
          />
        }
        posts={posts
          ? (
            <Timeline
              statuses={posts.read.items}
              viewer={viewer}
              here={here}
              label={`Posts by @${account.acct}`}
              empty={<p>No posts to show.</p>}
              pager={pagerLinks(c, posts.page, PAGE_SIZES.statuses, posts.read)}
            />
          )
          : <p>This account is suspended.</p>}
      />
    </AppLayout>,
  );
}

/** An unknown handle: said, with a search that may resolve it (the lookup here never asks WebFinger). */
async function profileNotFound(c: Context<ApiEnv>, handle: string): Promise<Response> {
  return await sendAppPage(
    c,
    <AppLayout
      title="Not found"
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={appViewer(c)}
    >
      <p>{NOT_FOUND}</p>
      <p>
        <a href={`/search?q=${encodeURIComponent(handle)}`}>Search for {handle}</a>
        {" · "}
        <a href="/">Back to Home</a>
      </p>
    </AppLayout>,
    404,
  );
}

/** GET /@acct/followers and /following: the API's list, as the viewer may see it. */
function followListPage(kind: "followers" | "following") {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const ctx = c.get("ctx");
    const viewer = appViewer(c);
    const { handle, found, account } = await accountOfHandle(c, viewer.accountId);
    if (!found || !account) return await profileNotFound(c, handle);
    const p = await params(c);
    const read = await readFollowList(ctx, kind, found, viewer.accountId, p);
    const title = kind === "followers"
      ? `Followers of @${account.acct}`
      : `Followed by @${account.acct}`;
    return await sendAppPage(
      c,
      <AppLayout title={title} instanceTitle={ctx.config.instance.title} viewer={viewer}>
        <p>
          <a href={accountPath(account)}>Back to the profile</a>
        </p>
        {read.items.length === 0 ? <p>Nobody to show.</p> : (
          <ul class="accounts">
            {read.items.map((a) => {
              // Hono's precompiled JSX would print a `key` as an attribute.
              // deno-lint-ignore jsx-key
              return <AccountRow account={a} />;
            })}
          </ul>
        )}
        <Pager
          links={pagerLinks(c, readPageParams(p, PAGE_SIZES.accounts), PAGE_SIZES.accounts, read)}
        />
      </AppLayout>,
    );
  };
}

/** The answer after a relationship command (see the module's comment). */
async function answerRelation(
  c: Context<ApiEnv>,
  run: (ctx: AppContext, me: string, target: string, p: Params) => Promise<unknown>,
  notice?: string,
): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const p = await params(c);
  const account = await viewableAccount(ctx, viewer.accountId, c.req.param("id"));
  const back = returnTo(p, account ? accountPath(account) : "/");
  if (!account) return redirectWithAlert(c, back, "not_found");
  try {
    await run(ctx, viewer.accountId, account.id, p);
  } catch (error) {
    const refusal = refusalOf(relationshipError(error));
    if (!refusal) throw error;
    if (wantsFragment(c)) return await barFragment(c, account, viewer, back, refusal.status);
    return redirectWithAlert(c, back, refusal.status === 403 ? "not_allowed" : "invalid");
  }
  if (wantsFragment(c)) return await barFragment(c, account, viewer, back);
  return redirectAfterPost(c, back, notice);
}

async function barFragment(
  c: Context<ApiEnv>,
  account: Account,
  viewer: AppViewer,
  back: string,
  status: 200 | 400 | 403 | 404 | 413 | 422 = 200,
): Promise<Response> {
  const [relationship] = await loadRelationships(c.get("ctx").database.db, viewer.accountId, [
    account.id,
  ]);
  return await sendFragment(
    c,
    <RelationshipBar
      account={account}
      relationship={relationship}
      viewer={viewer}
      returnTo={back}
      replace
    />,
    status,
  );
}

/** Mastodon's mute durations (seconds; 0 is until unmuted). */
const MUTE_DURATIONS: [number, string][] = [
  [0, "Until I unmute"],
  [300, "5 minutes"],
  [1800, "30 minutes"],
  [3600, "1 hour"],
  [21600, "6 hours"],
  [86400, "1 day"],
  [259200, "3 days"],
  [604800, "7 days"],
];

/** The confirmation page of a mute or a block. */
async function confirmation(c: Context<ApiEnv>, kind: "mute" | "block"): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const account = await viewableAccount(ctx, viewer.accountId, c.req.param("id"));
  if (!account) return await sendAppNotFound(c, NOT_FOUND);
  const back = returnTo({ return_to: c.req.query("return_to") ?? null }, accountPath(account));
  return await sendAppPage(
    c,
    <AppLayout
      title={`${kind === "mute" ? "Mute" : "Block"} @${account.acct}?`}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
    >
      <ConfirmPage
        action={`/accounts/${account.id}/${kind}`}
        token={viewer.csrfToken}
        returnTo={back}
        button={kind === "mute" ? "Mute" : "Block"}
        cancel={back.split("#")[0]}
        danger={kind === "block"}
      >
        {kind === "mute"
          ? (
            <>
              <p>
                Their posts and boosts leave your timelines; they are not told, and can still follow
                you and see your posts.
              </p>
              <label for="duration">Duration</label>
              <select name="duration" id="duration">
                {MUTE_DURATIONS.map(([seconds, label]) => (
                  <option value={String(seconds)}>{label}</option>
                ))}
              </select>
              <label class="check">
                <input type="checkbox" name="notifications" value="true" checked />
                Hide notifications from them too
              </label>
            </>
          )
          : (
            <p>
              They can no longer follow you or see your posts, you no longer see theirs, and
              following between you ends. They may see that they are blocked.
            </p>
          )}
      </ConfirmPage>
    </AppLayout>,
  );
}

export function appAccountRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/:handle{@[^/]+}", signedInBranch(profilePage));
  app.get("/:handle{@[^/]+}/followers", appPage(), followListPage("followers"));
  app.get("/:handle{@[^/]+}/following", appPage(), followListPage("following"));

  const on = "/accounts/:id{[0-9]+}";
  app.post(
    `${on}/follow`,
    appPage(),
    (c) => answerRelation(c, (ctx, me, t, p) => follow(ctx, me, t, readFollowOptions(p))),
  );
  app.post(`${on}/unfollow`, appPage(), (c) => answerRelation(c, unfollow));
  app.get(`${on}/mute`, appPage(), (c) => confirmation(c, "mute"));
  app.post(
    `${on}/mute`,
    appPage(),
    (c) => answerRelation(c, (ctx, me, t, p) => mute(ctx, me, t, readMuteOptions(p)), "muted"),
  );
  app.post(`${on}/unmute`, appPage(), (c) => answerRelation(c, unmute, "unmuted"));
  app.get(`${on}/block`, appPage(), (c) => confirmation(c, "block"));
  app.post(
    `${on}/block`,
    appPage(),
    (c) => answerRelation(c, (ctx, me, t) => block(ctx, me, t), "blocked"),
  );
  app.post(`${on}/unblock`, appPage(), (c) => answerRelation(c, unblock, "unblocked"));
  return app;
}
