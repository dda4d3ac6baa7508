/**
 * The public face: landing, about, profiles with their tabs, a thread, a
 * hashtag page, and the RSS feeds. Over HTTP: what each page and feed lists
 * (never a private or direct post, nothing of a suspended account), the
 * OpenGraph and alternate metadata, noindex, 404/410. In headless Chromium:
 * the same pages as a reader sees them, an axe-core check on each (no
 * serious or critical violation), and screenshots at phone and desktop
 * width in tests/artifacts/web/.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { accounts, domainBlocks, statuses, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { addRule } from "../../actors/moderation/instance_rules.ts";
import { afterAll, DB_KIND, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { browserTest } from "../fixtures/browser.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { insertPost, insertRemoteAccount } from "../discovery/helpers.ts";
import { axeFindings } from "./page_checks.ts";

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in the page`);
}
function excludes(text: string, part: string): void {
  assert.ok(!text.includes(part), `did not expect ${JSON.stringify(part)} in the page`);
}

const PRIVACY_FILE = await Deno.makeTempFile({ suffix: ".md" });
await Deno.writeTextFile(PRIVACY_FILE, "# Our policy\n\nWe keep **little**.");
const instance = await startInstance({
  listen: true,
  env: {
    INSTANCE_TITLE: "Knitting Town",
    INSTANCE_DESCRIPTION: "A small town for people who knit.",
    REGISTRATIONS: "approval",
    SHOW_DOMAIN_BLOCKS: "all",
    SHOW_DOMAIN_BLOCKS_RATIONALE: "all",
    CONTACT_EMAIL: "staff@knitting.example",
    PRIVACY_POLICY_FILE: PRIVACY_FILE,
  },
});
afterAll(async () => {
  await instance.close({ destroy: true });
  await Deno.remove(PRIVACY_FILE).catch(() => {});
});
const db = instance.rookery.ctx.database.db;

const alice = await createUser(instance, "alice", {
  account: {
    displayName: "Alice Purl",
    note: "<p>I knit <em>socks</em>.</p>",
    fields: [{
      name: "Site",
      value: '<a href="https://alice.example">alice.example</a>',
      verified_at: "2026-01-02T03:04:05.000Z",
    }],
  },
});
const bob = await createUser(instance, "bob", { settings: { noindex: true } });
const sam = await createUser(instance, "sam");
const gone = await createUser(instance, "gone");
await db.update(users).set({ role: "owner" }).where(eq(users.id, alice.userId));

const media = await mediaRow(instance, alice);
const withMedia = await postStatus(instance, alice.token, "Fresh yarn #knitting", {
  media_ids: [media],
});
const unlisted = await postStatus(instance, alice.token, "A quiet unlisted note", {
  visibility: "unlisted",
});
await postStatus(instance, alice.token, "Secret followers-only post", { visibility: "private" });
await postStatus(instance, alice.token, "@bob secret direct message", { visibility: "direct" });
const root = await postStatus(instance, alice.token, "Which needles do you use? #knitting");
const bobReply = await postStatus(instance, bob.token, "Bamboo, always.", {
  in_reply_to_id: root.id,
});
// Edited: the thread links its history, which visitors may open too.
await ok(instance, bob.token, "PUT", `/api/v1/statuses/${bobReply.id}`, {
  status: "Bamboo, always. Or birch.",
});
await postStatus(instance, alice.token, "Thanks, bob!", {
  in_reply_to_id: bobReply.id,
});
const bobOwn = await postStatus(instance, bob.token, "The scarf of bob is done");
await ok(instance, alice.token, "POST", `/api/v1/statuses/${bobOwn.id}/reblog`);
await ok(instance, alice.token, "POST", `/api/v1/statuses/${unlisted.id}/pin`);
// Would end a CDATA section early if written as it is.
await postStatus(instance, bob.token, "Tricky ]]> <![CDATA[ text", { spoiler_text: "cw ]]> too" });
await postStatus(instance, sam.token, "Spam from sam #knitting");
await db.update(accounts).set({ suspendedAt: new Date() }).where(eq(accounts.id, sam.id));
await db.update(accounts).set({ deletedAt: new Date() }).where(eq(accounts.id, gone.id));
// A remote post with the tag: hashtag pages list local and remote posts.
const rita = await insertRemoteAccount(instance, "rita", "remote.example");
const ritaPost = await insertPost(instance, rita, { tags: ["knitting"] });
await db.update(statuses).set({
  local: false,
  content: "<p>Remote knitter here</p>",
  url: "https://remote.example/@rita/1",
}).where(eq(statuses.id, ritaPost));
await addRule(db, { text: "Be kind to beginners", hint: "Everyone drops a stitch." });
await db.insert(domainBlocks).values({
  id: newId(),
  domain: "spam.example",
  severity: "suspend",
  publicComment: "Spam factory",
});

const page = async (path: string) => {
  const res = await instance.request(path, { headers: { Accept: "text/html" } });
  return { status: res.status, text: await res.text(), headers: res.headers };
};

test("public pages over HTTP", async (t) => {
  await t.step("profile: public posts and boosts, never private or direct", async () => {
    const { status, text, headers } = await page("/@alice");
    assert.equal(status, 200);
    includes(text, "Fresh yarn");
    includes(text, "A quiet unlisted note");
    includes(text, "The scarf of bob is done"); // the boost
    includes(text, "boosted");
    excludes(text, "Secret followers-only post");
    excludes(text, "secret direct message");
    excludes(text, "Thanks, bob!"); // a reply: on the replies tab only
    // The pin heads the page, and is listed again in its place.
    const pinned = text.slice(text.indexOf('<section class="pinned"'));
    assert.ok(pinned.indexOf("A quiet unlisted note") < pinned.indexOf("Fresh yarn"));
    assert.equal(text.split("A quiet unlisted note").length - 1, 2);
    includes(text, '<meta property="og:title" content="Alice Purl (@alice@');
    includes(text, '<meta property="og:type" content="profile"');
    includes(text, '<meta name="twitter:card" content="summary"');
    includes(
      text,
      `<link rel="alternate" type="application/activity+json" href="${instance.origin}/users/alice"`,
    );
    includes(text, 'type="application/rss+xml"');
    assert.match(
      text,
      /<a [^>]*href="https:\/\/alice.example"[^>]*rel="me|rel="me[^"]*"[^>]*href="https:\/\/alice.example"/,
    );
    includes(text, "verified 2026-01-02");
    includes(text, "<em>socks</em>");
    excludes(text, 'name="robots"');
    assert.match(headers.get("content-security-policy") ?? "", /default-src 'none'/);
  });

  await t.step("profile tabs: replies and media", async () => {
    const replies = await page("/@alice/with_replies");
    assert.equal(replies.status, 200);
    includes(replies.text, "Thanks, bob!");
    excludes(replies.text, "Secret followers-only post");
    const mediaTab = await page("/@alice/media");
    includes(mediaTab.text, "Fresh yarn");
    excludes(mediaTab.text, "A quiet unlisted note");
    includes(mediaTab.text, 'alt="a picture"');
  });

  await t.step("noindex, unknown, deleted and suspended accounts", async () => {
    includes((await page("/@bob")).text, '<meta name="robots" content="noindex, noarchive"');
    assert.equal((await page("/@nobody")).status, 404);
    assert.equal((await page("/@gone")).status, 410);
    const suspended = await page("/@sam");
    assert.equal(suspended.status, 410);
    excludes(suspended.text, "Spam from sam");
  });

  await t.step("paging by max_id", async () => {
    const { text } = await page(`/@alice?max_id=${unlisted.id}`);
    includes(text, "Fresh yarn");
    excludes(text, "A quiet unlisted note");
    assert.equal((await page("/@alice?max_id=junk")).status, 200);
  });

  await t.step("thread page", async () => {
    const { status, text } = await page(`/@bob/${bobReply.id}`);
    assert.equal(status, 200);
    includes(text, "Which needles do you use?"); // ancestor
    includes(text, "Bamboo, always."); // itself
    includes(text, "Thanks, bob!"); // descendant
    includes(text, '<meta property="og:type" content="article"');
    includes(text, `<link rel="alternate" type="application/activity+json" href="${bobReply.uri}"`);
    includes(text, '<meta name="robots" content="noindex, noarchive"'); // bob opted out
    assert.equal((await page(`/@alice/${bobReply.id}`)).status, 404);
  });

  await t.step("tag page: public posts with the tag, nothing of a suspended account", async () => {
    const { status, text } = await page("/tags/Knitting");
    assert.equal(status, 200);
    includes(text, "Remote knitter here");
    includes(text, "Fresh yarn");
    includes(text, "Which needles do you use?");
    excludes(text, "Spam from sam");
    excludes(text, "A quiet unlisted note");
    includes(text, '<meta property="og:title" content="#knitting"');
    assert.equal((await page("/tags/nosuchtag")).status, 404);
  });

  await t.step("landing and about pages", async () => {
    const landing = await page("/");
    assert.equal(landing.status, 200);
    includes(landing.text, "Knitting Town");
    includes(landing.text, "A small town for people who knit.");
    includes(landing.text, 'href="/auth/sign_up"');
    includes(landing.text, 'href="/auth/sign_in"');
    // alice, bob (sam is suspended, gone is deleted)
    assert.match(landing.text, /<strong>2<\/strong> users/);
    const about = await page("/about");
    assert.equal(about.status, 200);
    includes(about.text, "Be kind to beginners");
    includes(about.text, "staff@knitting.example");
    includes(about.text, "@alice");
    includes(about.text, "spam.example");
    includes(about.text, "Spam factory");
    // The footer links the privacy policy (configured), not the terms (not configured).
    includes(about.text, 'href="/privacy-policy"');
    excludes(about.text, 'href="/terms-of-service"');
    const policy = await page("/privacy-policy");
    assert.equal(policy.status, 200);
    includes(policy.text, "<strong>little</strong>");
    assert.equal((await page("/terms-of-service")).status, 404);
  });

  await t.step("a signed-in browser gets the web app's Home and can sign out", async () => {
    const session = await signInOverHttp(instance, "bob", "/");
    const home = await (await session.get("/")).text();
    // The signed-in `/` is the web app's Home (tests/web/app_home_test.ts).
    includes(home, "<h1>Home</h1>");
    includes(home, "@bob");
    includes(home, 'href="/@bob"');
    excludes(home, 'href="/auth/sign_up"');
    const out = await session.post("/auth/sign_out", { redirect_to: "/" });
    assert.equal(out.status, 303);
    await out.body?.cancel();
    includes(await (await session.get("/")).text(), 'href="/auth/sign_in"');
  });

  await t.step("account feed: RSS 2.0 with the enclosure", async () => {
    const res = await instance.request("/@alice.rss");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /application\/rss\+xml/);
    const xml = await res.text();
    assert.equal(XMLValidator.validate(xml), true);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml);
    const items = [parsed.rss.channel.item].flat();
    const descriptions = items.map((i: any) => String(i.description));
    // Public and unlisted originals, no replies, no boosts.
    assert.equal(items.length, 3, JSON.stringify(descriptions));
    assert.ok(descriptions.some((d) => d.includes("Fresh yarn")));
    assert.ok(!descriptions.some((d) => d.includes("Secret") || d.includes("scarf")));
    const pictured = items.find((i: any) => String(i.description).includes("Fresh yarn"));
    assert.equal(pictured.enclosure["@_type"], "image/png");
    assert.match(pictured.enclosure["@_url"], /^http:\/\/.*original\.png$/);
    assert.equal(pictured.link, withMedia.url);
    assert.equal(parsed.rss.channel.title, "Alice Purl");
    assert.equal((await instance.request("/@nobody.rss")).status, 404);
    assert.equal((await instance.request("/@sam.rss")).status, 410);
  });

  await t.step("a feed stays well-formed whatever the post says", async () => {
    const xml = await (await instance.request("/@bob.rss")).text();
    assert.equal(XMLValidator.validate(xml), true);
    const items = [new XMLParser().parse(xml).rss.channel.item].flat();
    assert.equal(items.length, 2);
    assert.ok(items.some((i: any) => String(i.description).includes("Tricky ]]&gt;")));
  });

  await t.step("tag feed", async () => {
    const res = await instance.request("/tags/knitting.rss");
    assert.equal(res.status, 200);
    const xml = await res.text();
    assert.equal(XMLValidator.validate(xml), true);
    const items = [new XMLParser({ ignoreAttributes: false }).parse(xml).rss.channel.item].flat();
    const descriptions = items.map((i: any) => String(i.description));
    assert.equal(items.length, 3, JSON.stringify(descriptions));
    assert.ok(descriptions.some((d) => d.includes("Remote knitter here")));
    assert.ok(!descriptions.some((d) => d.includes("Spam from sam")));
    const localXml = await (await instance.request("/tags/knitting.rss?local=true")).text();
    const localItems = [new XMLParser().parse(localXml).rss.channel.item].flat();
    assert.equal(localItems.length, 2);
    assert.equal((await instance.request("/tags/nosuchtag.rss")).status, 404);
  });
});

const ARTIFACTS = new URL(`../artifacts/web/${DB_KIND}/`, import.meta.url).pathname;

browserTest("public pages in a browser: content, accessibility, screenshots", async (browser) => {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const pages: [string, string][] = [
    ["landing", "/"],
    ["about", "/about"],
    ["profile", "/@alice"],
    ["replies", "/@alice/with_replies"],
    ["thread", `/@bob/${bobReply.id}`],
    ["history", `/statuses/${bobReply.id}/history`],
    ["tag", "/tags/knitting"],
    ["not_found", "/@nobody"],
    ["privacy", "/privacy-policy"],
  ];
  try {
    for (const [name, path] of pages) {
      for (const width of [390, 1280]) {
        // Phone width in the dark scheme, desktop in the light one: axe checks both palettes.
        const context = await browser.newContext({
          viewport: { width, height: 900 },
          colorScheme: width === 390 ? "dark" : "light",
        });
        const tab = await context.newPage();
        await tab.goto(`${instance.origin}${path}`);
        await tab.screenshot({ path: `${ARTIFACTS}${name}-${width}.png`, fullPage: true });
        const { violations, passes } = await axeFindings(tab);
        // axe really looked (it checks landmarks, contrast, names...).
        assert.ok(passes > 5, `${path}: axe ran ${passes} checks`);
        assert.deepEqual(violations, [], `${path}: ${violations.join("\n")}`);
        await context.close();
      }
    }
    const tab = await browser.newPage();
    await tab.goto(`${instance.origin}/@alice`);
    const texts = await tab.$$eval("article.status", (els) => els.map((e) => e.textContent ?? ""));
    assert.ok(texts.some((t) => t.includes("Fresh yarn")));
    assert.ok(!texts.some((t) => t.includes("Secret") || t.includes("secret direct")));
    await tab.goto(`${instance.origin}/tags/knitting`);
    const tagged = await tab.$$eval("article.status", (els) => els.map((e) => e.textContent ?? ""));
    assert.equal(tagged.length, 3);
    assert.ok(!tagged.some((t) => t.includes("Spam from sam")));
    await tab.goto(`${instance.origin}/@bob/${bobReply.id}`);
    assert.ok((await tab.textContent("article.focus"))!.includes("Bamboo, always."));
    assert.equal(await tab.locator("article.status").count(), 3);
    await tab.close();
  } finally {
    // The last file's browser test closes the shared instance.
  }
});
