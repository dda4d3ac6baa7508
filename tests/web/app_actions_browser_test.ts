/**
 * The web app's actions in headless Chromium, as a person does them, under
 * the pages' real CSP: one server and one browser for the whole file.
 * - Without JavaScript (every action a form and a navigation): boost,
 *   favourite, bookmark, mute a conversation and vote from a post; pin one's
 *   own; follow, unfollow, mute, unmute, block and unblock from a profile
 *   (mute and block through their confirmation pages); grouped
 *   notifications, whose opening moves the read marker; a conversation
 *   marked read; bookmarks and favourites; a list created, renamed, a member
 *   added and removed; a hashtag followed and unfollowed; follow requests
 *   accepted and rejected; search for an account, a hashtag, a post and a
 *   handle, and a handle on another server (a second instance) resolved;
 *   a post reported from its More menu (the report form and the
 *   filtered-notification pages audited with axe); a stranger's private
 *   mention held back, found through "Filtered notifications" and
 *   accepted; the notification policy changed.
 * - With JavaScript (the same forms posted in place, no navigation): the
 *   post's toggles and a vote, following from a profile, a follow request
 *   rejected, a conversation marked read, a notification dismissed; the composer's count (the server's: a link as
 *   characters_per_url) at and over the limit; a file posted with an upload
 *   progress bar; a refused action falling back to an ordinary submission
 *   of the button pressed; a list member added by an ordinary form (one POST, not a
 *   fetch then a fallback).
 * Every state is checked in the page and through the API; every wait is on
 * a navigation or a DOM state, never a sleep. Screenshots land in
 * tests/artifacts/app/<db>/ (actions-*.png, and the audited pages').
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { afterAll, startInstance } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { ok, postStatus, relationship } from "../fixtures/api.ts";
import { eq } from "drizzle-orm";
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { reports } from "../../db/schema/mod.ts";
import {
  APP_ARTIFACTS,
  appContext,
  auditApp,
  clickAndNavigate,
  scriptReady,
  sharedBrowser,
  signIn,
  watchConsole,
} from "./app_fixtures.ts";

const instance = await startInstance({ listen: true });
const browsers = sharedBrowser();
afterAll(async () => {
  await browsers.close();
  await instance.close({ destroy: true });
});
const origin = instance.origin;
const domain = new URL(origin).host;

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
const cat = await createUser(instance, "cat");
const dan = await createUser(instance, "dan", { account: { locked: true } });

/** A signed-in page of `who`, its script on or off; closed by the caller's context. */
async function signedIn(browser: Browser, who: string, js: boolean) {
  const context = await appContext(browser, { js });
  const page = await context.newPage();
  const problems = watchConsole(page);
  await signIn(page, instance, who, TEST_PASSWORD);
  if (js) await scriptReady(page);
  return { context, page, problems };
}

/** A blue PNG of `size` pixels square. */
async function png(size: number): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(
    await sharp({ create: { width: size, height: size, channels: 3, background: "#3366cc" } })
      .png().toBuffer(),
  );
}

async function shot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(APP_ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${APP_ARTIFACTS}actions-${name}.png`, fullPage: true });
}

/** A button of a post's action bar (by the command its "on" state posts). */
function toggle(page: Page, statusId: string, command: string) {
  return page.locator(`#status-${statusId} form.status-actions [data-focus-key="${command}"]`);
}

/** Marks the window, to tell later that no navigation happened. */
async function markWindow(page: Page): Promise<void> {
  await page.evaluate(() => Object.assign(globalThis, { stillHere: true }));
}

/** Asserts that the page did not navigate since markWindow (the form was posted in place). */
async function assertStillHere(page: Page, what: string): Promise<void> {
  const here = await page.evaluate(() => (globalThis as { stillHere?: boolean }).stillHere);
  assert.equal(here, true, `${what}: posted in place, no navigation`);
}

async function statusOf(id: string) {
  return await ok(instance, ann.token, "GET", `/api/v1/statuses/${id}`);
}

browsers.test("without JavaScript: boost, favourite, bookmark, mute, vote, pin", async (b) => {
  const { context, page, problems } = await signedIn(b, "ann", false);
  const post = await postStatus(instance, bob.token, "Bob's post to act on");
  await page.goto(`${origin}/@bob/${post.id}`);
  for (const command of ["reblog", "favourite", "bookmark"]) {
    await clickAndNavigate(page, `#status-${post.id} [data-focus-key="${command}"]`);
    assert.equal(await toggle(page, post.id, command).getAttribute("aria-pressed"), "true");
  }
  await page.click(`#status-${post.id} details.more summary`);
  await clickAndNavigate(page, `#status-${post.id} [data-focus-key="mute"]`);
  assert.equal(await toggle(page, post.id, "mute").getAttribute("aria-pressed"), "true");
  await shot(page, "post-acted");
  const seen = await statusOf(post.id);
  assert.deepEqual(
    [seen.reblogged, seen.favourited, seen.bookmarked, seen.muted],
    [true, true, true, true],
  );

  // Undo the favourite: the same button now posts the opposite command.
  await clickAndNavigate(page, `#status-${post.id} [data-focus-key="favourite"]`);
  assert.equal(await toggle(page, post.id, "favourite").getAttribute("aria-pressed"), "false");
  assert.equal((await statusOf(post.id)).favourited, false);

  // Bookmarks lists it; favourites (after favouriting again) too.
  await page.goto(`${origin}/bookmarks`);
  await page.locator(`article.status[data-id="${post.id}"]`).waitFor();
  await page.goto(`${origin}/@bob/${post.id}`);
  await clickAndNavigate(page, `#status-${post.id} [data-focus-key="favourite"]`);
  await page.goto(`${origin}/favourites`);
  await page.locator(`article.status[data-id="${post.id}"]`).waitFor();
  await shot(page, "favourites");

  // A vote: the form gives way to the results.
  const poll = await postStatus(instance, bob.token, "Tea or coffee?", {
    poll: { options: ["Tea", "Coffee"], expires_in: 3600 },
  });
  await page.goto(`${origin}/@bob/${poll.id}`);
  await page.check(`#status-${poll.id} form.poll input[value="1"]`);
  await clickAndNavigate(page, `#status-${poll.id} form.poll button[type=submit]`);
  assert.equal(await page.locator(`#status-${poll.id} form.poll`).count(), 0);
  const voted = await statusOf(poll.id);
  assert.deepEqual(voted.poll.own_votes, [1]);

  // Pin one's own post.
  const mine = await postStatus(instance, ann.token, "Ann's post worth pinning");
  await page.goto(`${origin}/@ann/${mine.id}`);
  await page.click(`#status-${mine.id} details.more summary`);
  await clickAndNavigate(page, `#status-${mine.id} [data-focus-key="pin"]`);
  assert.equal(await toggle(page, mine.id, "pin").getAttribute("aria-pressed"), "true");
  assert.equal((await statusOf(mine.id)).pinned, true);
  assert.deepEqual(problems, []);
  await context.close();
});

browsers.test("without JavaScript: follow, unfollow, mute, block from a profile", async (b) => {
  const { context, page, problems } = await signedIn(b, "ann", false);
  const bar = `#account-${cat.id}`;
  await page.goto(`${origin}/@cat`);
  // The avatar sits under the name (it covered it: the public page's pull-up rule).
  const name = (await page.locator("h1").boundingBox())!;
  const avatar = (await page.locator(".profile .avatar").boundingBox())!;
  assert.ok(
    avatar.y >= name.y + name.height,
    `avatar at ${avatar.y}, name ends ${name.y + name.height}`,
  );
  await clickAndNavigate(page, `${bar} button[formaction$="/follow"]`);
  await page.locator(`${bar} button[formaction$="/unfollow"]`).waitFor();
  assert.equal((await relationship(instance, ann.token, cat.id)).following, true);
  await shot(page, "profile-following");
  await clickAndNavigate(page, `${bar} button[formaction$="/unfollow"]`);
  await page.locator(`${bar} button[formaction$="/follow"]`).waitFor();
  assert.equal((await relationship(instance, ann.token, cat.id)).following, false);

  // Mute through its confirmation (duration, notifications), then unmute.
  await clickAndNavigate(page, `${bar} a[href^="/accounts/${cat.id}/mute"]`);
  await page.selectOption("#duration", { index: 0 });
  await shot(page, "mute-confirm");
  await clickAndNavigate(page, "form.confirm button[type=submit]");
  assert.equal(new URL(page.url()).pathname, "/@cat");
  await page.locator(`${bar} button[formaction$="/unmute"]`).waitFor();
  assert.equal((await relationship(instance, ann.token, cat.id)).muting, true);
  await clickAndNavigate(page, `${bar} button[formaction$="/unmute"]`);
  assert.equal((await relationship(instance, ann.token, cat.id)).muting, false);

  // Block through its confirmation, then unblock.
  await clickAndNavigate(page, `${bar} a[href^="/accounts/${cat.id}/block"]`);
  await clickAndNavigate(page, "form.confirm button[type=submit]");
  await page.locator(`${bar} button[formaction$="/unblock"]`).waitFor();
  // The notice is this action's (the page came back from the unmute with its own).
  assert.equal(await page.textContent(".notice"), "Blocked.");
  assert.equal((await relationship(instance, ann.token, cat.id)).blocking, true);
  await shot(page, "profile-blocked");
  await clickAndNavigate(page, `${bar} button[formaction$="/unblock"]`);
  await page.locator(`${bar} button[formaction$="/follow"]`).waitFor();
  assert.equal((await relationship(instance, ann.token, cat.id)).blocking, false);
  assert.deepEqual(problems, []);
  await context.close();
});

browsers.test("without JavaScript: grouped notifications, read marker, conversations", async (b) => {
  const post = await postStatus(instance, ann.token, "Ann's post for notifications");
  await ok(instance, bob.token, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await ok(instance, cat.token, "POST", `/api/v1/statuses/${post.id}/favourite`);
  // Ann follows Bob: a private mention from someone she does not follow would
  // wait among the notification requests (the default policy), not here.
  await ok(instance, ann.token, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await postStatus(instance, bob.token, "@ann a private word", { visibility: "direct" });
  const newest = await ok(instance, ann.token, "GET", "/api/v1/notifications?limit=1");

  const { context, page, problems } = await signedIn(b, "ann", false);
  await page.goto(`${origin}/notifications`);
  // Bob's and Cat's favourites of the same post are one group.
  const group = page.locator("li.notification-favourite", { hasText: "Ann's post for" });
  await group.waitFor();
  assert.equal(await group.count(), 1);
  const sentence = await group.locator(".sentence").textContent();
  assert.match(sentence!, /(bob and cat|cat and bob) favourited/);
  await page.locator("li.notification-mention", { hasText: "a private word" }).waitFor();
  await shot(page, "notifications");
  const markers = await ok(instance, ann.token, "GET", "/api/v1/markers?timeline[]=notifications");
  assert.equal(markers.notifications.last_read_id, newest[0].id);

  // The conversation: unread, then marked read.
  await page.goto(`${origin}/conversations`);
  const row = page.locator("li.conversation", { hasText: "a private word" });
  await row.locator(".badge", { hasText: "Unread" }).waitFor();
  await shot(page, "conversations");
  await clickAndNavigate(page, 'li.conversation button[formaction$="/read"]');
  await page.locator('li.conversation button[formaction$="/unread"]').waitFor();
  assert.equal(await row.locator(".badge", { hasText: "Unread" }).count(), 0);
  const [conversation] = await ok(instance, ann.token, "GET", "/api/v1/conversations");
  assert.equal(conversation.unread, false);
  assert.deepEqual(problems, []);
  await context.close();
});

browsers.test("without JavaScript: a list, its members; a followed hashtag", async (b) => {
  await ok(instance, ann.token, "POST", `/api/v1/accounts/${bob.id}/follow`);
  // An unread notification: every page's "Notifications" is marked (audited below).
  const liked = await postStatus(instance, ann.token, "Ann's post that bob likes");
  await ok(instance, bob.token, "POST", `/api/v1/statuses/${liked.id}/favourite`);
  const { context, page, problems } = await signedIn(b, "ann", false);
  await page.goto(`${origin}/lists`);
  await page.fill("#list-title", "Friends");
  await clickAndNavigate(page, "form.list-form button[type=submit]");
  const listId = new URL(page.url()).pathname.match(/^\/lists\/(\d+)\/edit$/)![1];
  await page.fill("#list-title", "Friends and family");
  await clickAndNavigate(page, "form.list-form button[type=submit]");
  const list = await ok(instance, ann.token, "GET", `/api/v1/lists/${listId}`);
  assert.equal(list.title, "Friends and family");

  await page.goto(`${origin}/lists/${listId}/edit`);
  await page.fill("#member-q", "bob");
  await clickAndNavigate(page, "form[role=search] button[type=submit]");
  await clickAndNavigate(page, `form[action="/lists/${listId}/accounts"] button[type=submit]`);
  await page.locator(`#list-members #member-${bob.id}`).waitFor();
  await page.locator('nav a.unread[href="/notifications"]').waitFor();
  await shot(page, "list-edit");
  await auditApp(page, "list-edit");
  let members = await ok(instance, ann.token, "GET", `/api/v1/lists/${listId}/accounts`);
  assert.deepEqual(members.map((a: { id: string }) => a.id), [bob.id]);
  await clickAndNavigate(page, `#member-${bob.id} button[type=submit]`);
  assert.equal(await page.locator(`#member-${bob.id}`).count(), 0);
  members = await ok(instance, ann.token, "GET", `/api/v1/lists/${listId}/accounts`);
  assert.deepEqual(members, []);

  // Follow a hashtag from its page; unfollow it from /followed_tags.
  await page.goto(`${origin}/tags/sailing`);
  await clickAndNavigate(page, "form.tag-follow button[type=submit]");
  assert.equal(new URL(page.url()).pathname, "/tags/sailing");
  await page.locator("form.tag-follow button", { hasText: "Unfollow" }).waitFor();
  await page.goto(`${origin}/followed_tags`);
  await page.locator("#tag-sailing").waitFor();
  await shot(page, "followed-tags");
  await clickAndNavigate(page, "#tag-sailing button[type=submit]");
  assert.equal(await page.locator("#tag-sailing").count(), 0);
  assert.deepEqual(await ok(instance, ann.token, "GET", "/api/v1/followed_tags"), []);
  assert.deepEqual(problems, []);
  await context.close();
});

browsers.test("follow requests: accepted without JavaScript, rejected with it", async (b) => {
  await ok(instance, bob.token, "POST", `/api/v1/accounts/${dan.id}/follow`);
  await ok(instance, cat.token, "POST", `/api/v1/accounts/${dan.id}/follow`);
  const plain = await signedIn(b, "dan", false);
  await plain.page.goto(`${origin}/follow_requests`);
  await plain.page.locator(`#request-${cat.id}`).waitFor();
  await shot(plain.page, "follow-requests");
  await clickAndNavigate(plain.page, `#request-${bob.id} button[formaction$="/authorize"]`);
  assert.equal(await plain.page.locator(`#request-${bob.id}`).count(), 0);
  assert.equal((await relationship(instance, bob.token, dan.id)).following, true);
  assert.deepEqual(plain.problems, []);
  await plain.context.close();

  const scripted = await signedIn(b, "dan", true);
  await scripted.page.goto(`${origin}/follow_requests`);
  await scriptReady(scripted.page);
  await markWindow(scripted.page);
  await scripted.page.click(`#request-${cat.id} button[formaction$="/reject"]`);
  await scripted.page.locator(`#request-${cat.id}`).waitFor({ state: "detached" });
  await assertStillHere(scripted.page, "follow request rejected");
  const rel = await relationship(instance, cat.token, dan.id);
  assert.deepEqual([rel.following, rel.requested], [false, false]);
  assert.deepEqual(scripted.problems, []);
  await scripted.context.close();
});

browsers.test("without JavaScript: search for an account, a hashtag, a post, a handle", async (b) => {
  await postStatus(instance, ann.token, "Planning a sailing trip #sailing");
  const { context, page, problems } = await signedIn(b, "ann", false);
  async function search(q: string): Promise<void> {
    await page.goto(`${origin}/search`);
    await page.fill("#search-q", q);
    await clickAndNavigate(page, "form.search button[type=submit]");
  }
  await search("cat");
  await page.locator(`ul.accounts a[href="/@cat"]`).first().waitFor();
  await search("#sailing");
  await page.locator('ul.tags a[href="/tags/sailing"]').waitFor();
  await search("sailing trip");
  await page.locator("article.status", { hasText: "Planning a sailing trip" }).waitFor();
  await shot(page, "search");
  // A full handle that finds one account opens its profile.
  await search(`@bob@${domain}`);
  assert.equal(new URL(page.url()).pathname, "/@bob");
  assert.deepEqual(problems, []);
  await context.close();
});

browsers.test("without JavaScript: a remote handle is resolved on its server", async (b) => {
  const remote = await startInstance({ listen: true, originHost: "127.0.0.1" });
  try {
    await createUser(remote, "zed");
    await postStatus(remote, (await createUser(remote, "yan")).token, "Yan is elsewhere");
    const { context, page, problems } = await signedIn(b, "ann", false);
    await page.goto(`${origin}/search`);
    await page.fill("#search-q", `@zed@${remote.domain}`);
    await clickAndNavigate(page, "form.search button[type=submit]");
    // One account found: its profile here, with Follow.
    assert.equal(decodeURIComponent(new URL(page.url()).pathname), `/@zed@${remote.domain}`);
    await page.locator("form.relationship button", { hasText: "Follow" }).waitFor();
    await shot(page, "remote-profile");
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await remote.close({ destroy: true });
  }
});

browsers.test("without JavaScript: report a post; filtered notifications; the policy", async (b) => {
  const eve = await createUser(instance, "eve");
  await postStatus(instance, eve.token, "@ann a stranger's private word", { visibility: "direct" });
  const post = await postStatus(instance, bob.token, "Bob's post to report");
  const { context, page, problems } = await signedIn(b, "ann", false);

  // Report from the post's More menu: the form, then back on the post.
  await page.goto(`${origin}/@bob/${post.id}`);
  await page.click(`#status-${post.id} details.more summary`);
  await clickAndNavigate(page, `#status-${post.id} details.more a[href^="/reports/new"]`);
  assert.equal(await page.isChecked(`input[name="status_ids[]"][value="${post.id}"]`), true);
  // No rules on this server: "It breaks the server's rules" is not offered.
  assert.equal(await page.locator('input[name=category][value="violation"]').count(), 0);
  await page.check('input[name=category][value="spam"]');
  await page.fill("#report-comment", "Selling things in replies");
  await auditApp(page, "report");
  await clickAndNavigate(page, "form.report-form button[type=submit]");
  assert.equal(new URL(page.url()).pathname, `/@bob/${post.id}`);
  await page.locator(".notice", { hasText: "the report was sent" }).waitFor();
  const [report] = await instance.rookery.ctx.database.db.select().from(reports)
    .where(eq(reports.accountId, ann.id));
  assert.deepEqual(
    [report.targetAccountId, report.category, report.statusIds, report.comment],
    [bob.id, "spam", [post.id], "Selling things in replies"],
  );

  // The stranger's mention waits among the filtered notifications; accept it.
  await page.goto(`${origin}/notifications`);
  assert.equal(await page.locator("li.notification", { hasText: "a stranger's" }).count(), 0);
  await clickAndNavigate(page, 'p.filtered a[href="/notifications/requests"]');
  const row = page.locator("li.account-row", { hasText: "@eve" });
  await row.waitFor();
  await auditApp(page, "notification-requests");
  await clickAndNavigate(page, 'li.account-row button[formaction$="/accept"]');
  await page.locator("#notification-requests", { hasText: "Nothing filtered." }).waitFor();
  await page.goto(`${origin}/notifications`);
  await page.locator("li.notification", { hasText: "a stranger's private word" }).waitFor();

  // The policy: filter people Ann does not follow.
  await page.goto(`${origin}/notifications/policy`);
  await auditApp(page, "notification-policy");
  await page.selectOption("#policy-for_not_following", "filter");
  await clickAndNavigate(page, "form.policy-form button[type=submit]");
  await page.locator(".notice", { hasText: "Saved." }).waitFor();
  const policy = await ok(instance, ann.token, "GET", "/api/v2/notifications/policy");
  assert.equal(policy.for_not_following, "filter");
  await ok(instance, ann.token, "PATCH", "/api/v2/notifications/policy", {
    for_not_following: "accept",
  });
  assert.deepEqual(problems, []);
  await context.close();
});

browsers.test("with JavaScript: actions in place", async (b) => {
  const { context, page, problems } = await signedIn(b, "cat", true);
  const post = await postStatus(instance, bob.token, "Bob's post for the script");
  const poll = await postStatus(instance, bob.token, "Sea or mountains?", {
    poll: { options: ["Sea", "Mountains"], expires_in: 3600 },
  });
  await page.goto(`${origin}/@bob/${post.id}`);
  await scriptReady(page);
  await markWindow(page);
  for (const command of ["reblog", "favourite", "bookmark"]) {
    await toggle(page, post.id, command).click();
    await page.locator(
      `#status-${post.id} [data-focus-key="${command}"][aria-pressed="true"]`,
    ).waitFor();
  }
  await assertStillHere(page, "post toggles");
  const seen = await ok(instance, cat.token, "GET", `/api/v1/statuses/${post.id}`);
  assert.deepEqual([seen.reblogged, seen.favourited, seen.bookmarked], [true, true, true]);

  await page.goto(`${origin}/@bob/${poll.id}`);
  await scriptReady(page);
  await markWindow(page);
  await page.check(`#status-${poll.id} form.poll input[value="0"]`);
  await page.click(`#status-${poll.id} form.poll button[type=submit]`);
  await page.locator(`#status-${poll.id} form.poll`).waitFor({ state: "detached" });
  await assertStillHere(page, "poll vote");
  const voted = await ok(instance, cat.token, "GET", `/api/v1/statuses/${poll.id}`);
  assert.deepEqual(voted.poll.own_votes, [0]);

  // Follow from the profile: the bar comes back with Unfollow.
  await page.goto(`${origin}/@bob`);
  await scriptReady(page);
  await markWindow(page);
  await page.click(`#account-${bob.id} button[formaction$="/follow"]`);
  await page.locator(`#account-${bob.id} button[formaction$="/unfollow"]`).waitFor();
  await assertStillHere(page, "follow");
  assert.equal((await relationship(instance, cat.token, bob.id)).following, true);
  await shot(page, "profile-js");

  // A conversation marked read, then a notification dismissed, in place.
  await postStatus(instance, bob.token, "@cat a word for the script", { visibility: "direct" });
  await page.goto(`${origin}/conversations`);
  await scriptReady(page);
  await markWindow(page);
  const conversation = page.locator("li.conversation", { hasText: "a word for the script" });
  await conversation.locator('button[formaction$="/read"]').click();
  await conversation.locator('button[formaction$="/unread"]').waitFor();
  await assertStillHere(page, "conversation read");
  await page.goto(`${origin}/notifications`);
  await scriptReady(page);
  await markWindow(page);
  const mention = page.locator("li.notification-mention", { hasText: "a word for the script" });
  await mention.locator("form[action$='/dismiss'] button").click();
  await mention.waitFor({ state: "detached" });
  await assertStillHere(page, "notification dismissed");
  const left = await ok(instance, cat.token, "GET", "/api/v1/notifications?types[]=mention");
  assert.equal(left.length, 0);

  // A list member added, then removed, in place: each posted once, the focus on "Members".
  const list = await ok(instance, cat.token, "POST", "/api/v1/lists", { title: "Cat's list" });
  await page.goto(`${origin}/lists/${list.id}/edit?q=bob`);
  await scriptReady(page);
  await markWindow(page);
  const posts: string[] = [];
  page.on("request", (r) => r.method() === "POST" && posts.push(new URL(r.url()).pathname));
  await page.click(`form[action="/lists/${list.id}/accounts"] button[type=submit]`);
  await page.locator(`#list-members #member-${bob.id}`).waitFor();
  await page.locator("#list-members-heading:focus").waitFor();
  const members = await ok(instance, cat.token, "GET", `/api/v1/lists/${list.id}/accounts`);
  assert.deepEqual(members.map((a: { id: string }) => a.id), [bob.id]);
  await page.click(`#member-${bob.id} button[type=submit]`);
  await page.locator(`#member-${bob.id}`).waitFor({ state: "detached" });
  await assertStillHere(page, "list member added and removed");
  assert.deepEqual(posts, [`/lists/${list.id}/accounts`, `/lists/${list.id}/accounts/remove`]);
  assert.deepEqual(await ok(instance, cat.token, "GET", `/api/v1/lists/${list.id}/accounts`), []);
  assert.deepEqual(problems, []);
  await context.close();
});

browsers.test("with JavaScript: the count, an upload's progress, a refused action", async (b) => {
  const { context, page, problems } = await signedIn(b, "cat", true);
  // A refused action (the post deleted meanwhile: a 404, no fragment) goes
  // the ordinary way by the button pressed, not the form's default action.
  const gone = await postStatus(instance, bob.token, "Bob's post about to go");
  await page.goto(`${origin}/@bob/${gone.id}`);
  await scriptReady(page);
  await ok(instance, bob.token, "DELETE", `/api/v1/statuses/${gone.id}`);
  const sent: string[] = [];
  const record = (r: { method(): string; url(): string }) => {
    if (r.method() === "POST") sent.push(new URL(r.url()).pathname);
  };
  page.on("request", record);
  await clickAndNavigate(page, `#status-${gone.id} [data-focus-key="bookmark"]`);
  page.off("request", record);
  assert.deepEqual(sent, [`/statuses/${gone.id}/bookmark`, `/statuses/${gone.id}/bookmark`]);

  // The composer counts as the server does: at the limit it says 0 left and
  // posts; one character more (after the link, so not part of it) is too many.
  await page.goto(`${origin}/`);
  await scriptReady(page);
  const max = Number(await page.getAttribute("#composer", "data-max-characters"));
  const perUrl = Number(await page.getAttribute("#composer", "data-characters-per-url"));
  const atLimit = `${"x".repeat(max - perUrl - 1)} https://example.com/${"a".repeat(60)}`;
  const count = page.locator("#composer output.hint");
  await page.fill("#composer textarea[name=status]", `${atLimit}!`);
  await page.locator("#composer output.hint.over", { hasText: "1 character too many" }).waitFor();
  await page.fill("#composer textarea[name=status]", atLimit);
  await count.filter({ hasText: "0 characters left" }).waitFor();
  await page.click("#composer button[type=submit]");
  await page.locator("#feed article.status", { hasText: "https://example.com/" }).waitFor();
  await count.filter({ hasText: `${max} characters left` }).waitFor();

  // A file posted with the script: a progress bar while it uploads, then the post with it.
  await page.evaluate(`(() => {
    const seen = [];
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeName === "PROGRESS") seen.push(node.className);
        }
      }
    }).observe(document.body, { childList: true, subtree: true });
    globalThis.progressSeen = seen;
  })()`);
  await page.fill("#composer textarea[name=status]", "A picture, uploaded with progress");
  await page.click("#composer details.attachments-field summary");
  await page.setInputFiles("#media-0-file", {
    name: "blue.png",
    mimeType: "image/png",
    buffer: Buffer.from(await png(800)),
  });
  await page.fill("#media-0-description", "A blue square");
  await page.click("#composer button[type=submit]");
  const pictured = page.locator("#feed article.status", { hasText: "uploaded with progress" });
  await pictured.locator('img[alt="A blue square"]').waitFor();
  assert.deepEqual(
    await page.evaluate(() => (globalThis as { progressSeen?: string[] }).progressSeen),
    ["upload-progress"],
  );
  assert.equal(await page.locator("progress.upload-progress").count(), 0);

  assert.deepEqual(problems, []);
  await context.close();
});
