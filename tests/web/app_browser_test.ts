/**
 * The web app in headless Chromium, as a person uses it, on the harness's
 * plain-http origin, under the pages' real CSP (no bypass):
 * - without JavaScript: a newcomer signs up and signs in through the forms,
 *   lands on Home, posts, replies from the thread, edits and deletes, reads
 *   the local timeline; the pages pass axe at 390 dark and 1280 light, with
 *   screenshots (tests/artifacts/app/<db>/);
 * - with JavaScript: the script boots under Trusted Types with no console
 *   refusal, the composer posts in place (no navigation), another tab's post
 *   arrives on Home live (inserted at the top, or behind the "1 new post"
 *   button once the reader has moved into the feed), an edit replaces the
 *   article and a delete leaves a tombstone, the keyboard moves between posts
 *   and opens a warning, the shortcuts can be switched off, reduced motion
 *   stops the button's animation, the page's web token watches the stream
 *   and reads nothing else, web posts carry the "Web" application, a
 *   password change in another tab rotates the token (the page reconnects
 *   with the new one by itself), and signing out in another tab ends the
 *   live updates with a banner.
 * Every wait is on a navigation or a DOM state, never a sleep.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { afterAll, startInstance } from "../harness.ts";
import { browserTest } from "../fixtures/browser.ts";
import { createUser } from "../fixtures/users.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import {
  appContext,
  auditApp,
  clickAndNavigate,
  PASSWORD,
  scriptReady,
  signUpAndSignIn,
  streamOpen,
  watchConsole,
  writeContactSheet,
} from "./app_fixtures.ts";

const instance = await startInstance({ listen: true });
afterAll(async () => {
  await writeContactSheet();
  await instance.close({ destroy: true });
});
const bob = await createUser(instance, "bob");
const bobsPost = await postStatus(instance, bob.token, "Bob says hello to the local timeline");

/** The id of the first article on the page whose text includes `text`. */
async function articleId(page: Page, text: string): Promise<string> {
  const article = page.locator("article.status", { hasText: text }).first();
  await article.waitFor();
  return (await article.getAttribute("data-id"))!;
}

browserTest("without JavaScript: sign up, sign in, post, reply, edit, delete", async (browser) => {
  const context = await appContext(browser, { js: false });
  const page = await context.newPage();
  const problems = watchConsole(page);
  await signUpAndSignIn(page, instance, "ann");
  await auditApp(page, "home-empty");

  // Post from Home's composer: back on Home with the post and a notice.
  await page.fill("#composer textarea[name=status]", "My first post from the web");
  await clickAndNavigate(page, "#composer button[type=submit]");
  assert.equal(new URL(page.url()).pathname, "/");
  const id = await articleId(page, "My first post from the web");
  await auditApp(page, "home");

  // Reply from the thread's composer.
  await page.goto(`${instance.origin}/@ann/${id}`);
  await page.fill("#reply textarea[name=status]", "And a reply to myself");
  await clickAndNavigate(page, "#reply button[type=submit]");
  const replyId = await articleId(page, "And a reply to myself");
  await page.goto(`${instance.origin}/@ann/${id}`);
  await page.locator("article.status", { hasText: "And a reply to myself" }).waitFor();
  await auditApp(page, "thread");

  // Edit: the composer in edit mode, then the post's page with the new text.
  await page.goto(`${instance.origin}/statuses/${id}/edit`);
  await page.fill("#composer textarea[name=status]", "My first post, edited");
  await clickAndNavigate(page, "#composer button[type=submit]");
  await page.locator("article.status", { hasText: "My first post, edited" }).waitFor();

  // Delete the reply through its confirmation; it is gone from Home.
  await page.goto(`${instance.origin}/statuses/${replyId}/delete`);
  await auditApp(page, "delete-confirm");
  await clickAndNavigate(page, "form.confirm button[type=submit]");
  assert.equal(new URL(page.url()).pathname, "/");
  assert.equal(await page.locator(`#status-${replyId}`).count(), 0);

  // The local timeline shows Bob's post and Ann's.
  await page.goto(`${instance.origin}/public/local`);
  await page.locator(`#status-${bobsPost.id}`).waitFor();
  await page.locator("article.status", { hasText: "My first post, edited" }).waitFor();
  await auditApp(page, "local");
  await page.goto(`${instance.origin}/keyboard_shortcuts`);
  await auditApp(page, "shortcuts");
  assert.deepEqual(problems, []);
  await context.close();
});

browserTest(
  "with JavaScript: in-place posting, live updates, keyboard, web token",
  async (browser) => {
    const context = await appContext(browser, { js: true });
    const page = await context.newPage();
    const problems = watchConsole(page);
    await signUpAndSignIn(page, instance, "cal");
    await scriptReady(page);
    await streamOpen(page);

    // The composer posts in place: no navigation (a marker on window survives).
    await page.evaluate(() => Object.assign(globalThis, { stillHere: true }));
    await page.fill("#composer textarea[name=status]", "Posted without leaving the page");
    await page.click("#composer button[type=submit]");
    const mine = await articleId(page, "Posted without leaving the page");
    assert.equal(
      await page.evaluate(() => (globalThis as { stillHere?: boolean }).stillHere),
      true,
    );
    assert.equal(await page.inputValue("#composer textarea[name=status]"), "");

    // Web posts carry the Web application, as Mastodon's web app's do.
    const seen = await ok(instance, bob.token, "GET", `/api/v1/statuses/${mine}`);
    assert.equal(seen.application?.name, "Web");

    // Another tab (the same session, its script off so that each post is a
    // navigation) posts: at the top with nothing focused, it is inserted at once.
    const otherContext = await appContext(browser, { js: false });
    await otherContext.addCookies(await context.cookies());
    const other = await otherContext.newPage();
    await other.goto(`${instance.origin}/statuses/new`);
    await other.fill("#composer textarea[name=status]", "From my other tab");
    await clickAndNavigate(other, "#composer button[type=submit]");
    await page.locator("#feed article.status", { hasText: "From my other tab" }).waitFor();

    // Focus in the feed (j): the next one waits behind the button, which shows it.
    // (Esc leaves the composer, which kept the focus after posting.)
    await page.keyboard.press("Escape");
    await page.keyboard.press("j");
    await page.locator("article.status:focus").waitFor();
    await other.goto(`${instance.origin}/statuses/new`);
    await other.fill("#composer textarea[name=status]", "Waiting behind the button");
    await clickAndNavigate(other, "#composer button[type=submit]");
    const button = page.locator("button.new-posts");
    await button.waitFor({ state: "visible" });
    assert.equal(await button.textContent(), "1 new post");
    assert.equal(
      await page.locator("#feed article.status", { hasText: "Waiting behind the button" }).count(),
      0,
    );
    await button.click();
    await page.locator("article.status:focus", { hasText: "Waiting behind the button" }).waitFor();
    await auditApp(page, "home-live");

    // An edit elsewhere replaces the article; a delete leaves a tombstone.
    const editedId = await articleId(page, "From my other tab");
    await other.goto(`${instance.origin}/statuses/${editedId}/edit`);
    await other.fill("#composer textarea[name=status]", "From my other tab, edited");
    await clickAndNavigate(other, "#composer button[type=submit]");
    await page.locator(`#status-${editedId}`, { hasText: "From my other tab, edited" }).waitFor();
    await other.goto(`${instance.origin}/statuses/${mine}/delete`);
    await clickAndNavigate(other, "form.confirm button[type=submit]");
    await page.locator(".tombstone", { hasText: "This post was deleted." }).waitFor();

    // The page's web token: the stream takes it, the rest of the API does not.
    const token = await page.getAttribute("meta[name=rookery-stream-token]", "content");
    assert.ok(token && token.length === 43);
    const api = await instance.request("/api/v1/timelines/home", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(api.status, 401);
    await api.body?.cancel();
    const health = await instance.request("/api/v1/streaming/health");
    assert.equal(health.status, 200);
    await health.body?.cancel();

    // Keyboard: x opens a content warning of the focused post.
    await other.goto(`${instance.origin}/statuses/new`);
    await other.fill("#composer textarea[name=status]", "Under the warning");
    await other.click("#composer details.cw-field summary");
    await other.fill("#composer input[name=spoiler_text]", "A warning");
    await clickAndNavigate(other, "#composer button[type=submit]");
    await button.waitFor({ state: "visible" });
    await page.keyboard.press(".");
    const warned = page.locator("article.status", { hasText: "A warning" }).first();
    await warned.waitFor();
    await warned.focus();
    await page.keyboard.press("x");
    assert.equal(await warned.locator("details.cw").getAttribute("open"), "");
    // f favourites the focused post through its own button (posted in place:
    // the article comes back with the button pressed).
    await warned.focus();
    await page.keyboard.press("f");
    await page.locator("article.status", { hasText: "A warning" }).first()
      .locator('button[data-shortcut="favourite"][aria-pressed="true"]').waitFor();

    // The shortcuts switched off stop acting.
    await page.goto(`${instance.origin}/keyboard_shortcuts`);
    await scriptReady(page);
    await page.uncheck("#shortcuts-enabled");
    await page.goto(`${instance.origin}/`);
    await scriptReady(page);
    await page.locator("article.status").first().focus();
    await page.keyboard.press("j");
    assert.equal(
      await page.evaluate("document.activeElement === document.querySelector('article.status')"),
      true,
    );
    await page.goto(`${instance.origin}/keyboard_shortcuts`);
    await scriptReady(page);
    await page.check("#shortcuts-enabled");

    // A password change in the other tab rotates the session's web token: the
    // old token's socket is closed, and the page reconnects with the new one.
    await page.goto(`${instance.origin}/`);
    await streamOpen(page);
    await other.goto(`${instance.origin}/settings/account`);
    await other.fill("#password-current-password", PASSWORD);
    await other.fill("#password", "a new and long enough password");
    await other.fill("#password_confirmation", "a new and long enough password");
    await clickAndNavigate(other, ".password-form button");
    await page.waitForSelector("html[data-stream='closed']", { state: "attached" });
    await streamOpen(page);
    assert.equal(await page.locator(".stream-stopped").count(), 0);

    // Signing out in the other tab ends the session, its token and the live updates.
    await page.goto(`${instance.origin}/`);
    await streamOpen(page);
    await other.goto(`${instance.origin}/`);
    await clickAndNavigate(other, "header button[type=submit]");
    await page.locator(".stream-stopped").waitFor();
    assert.deepEqual(problems, []);
    await otherContext.close();
    await context.close();
  },
);

browserTest("reduced motion: the new-posts button does not fade in", async (browser) => {
  const context = await appContext(browser, { js: true, reducedMotion: "reduce" });
  const page = await context.newPage();
  await signUpAndSignIn(page, instance, "dee");
  await scriptReady(page);
  const duration = await page.evaluate(`(() => {
    const button = document.querySelector("button.new-posts");
    button.hidden = false;
    return getComputedStyle(button).animationDuration;
  })()`);
  assert.equal(duration, "0s");
  await context.close();
});
