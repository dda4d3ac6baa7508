/**
 * Preview cards over HTTP: a status with a link gets the card of the page
 * (fetched by the worker from a loopback server, as ALLOW_PRIVATE_ADDRESS
 * allows), the link timeline lists the statuses sharing it, and the rules on
 * which statuses and links get one hold, for local and remote statuses.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { mediaRow } from "../fixtures/media.ts";
import { createUser } from "../fixtures/users.ts";
import { newId } from "../../db/ids.ts";
import { accounts } from "../../db/schema/mod.ts";
import { createStatus } from "../../actors/statuses/create.ts";
import { editRemoteStatus } from "../../actors/statuses/edit_remote.ts";
import { sanitizeHtml } from "../../actors/formatting/sanitize_html.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { pruneCardFailures } from "../../actors/cards/stored.ts";
import { getStatus, jobsDrained, startPageServer, waitForCard } from "./helpers.ts";

test("statuses get the card of their first link; the link timeline lists them", async () => {
  const pages = await startPageServer();
  const instance = await startInstance();
  try {
    const { base } = pages;
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const linkIds = async (url: string) => {
      const res = await callJson(
        instance,
        null,
        "GET",
        `/api/v1/timelines/link?url=${encodeURIComponent(url)}`,
      );
      assert.equal(res.status, 200);
      return res.body.map((s: any) => s.id);
    };

    // The worker fetches the page, reads its OpenGraph tags and links the card.
    const first = await postStatus(instance, alice, { status: `Read this: ${base}/og` });
    assert.equal(first.card, null, "the request itself fetches nothing");
    const card = await waitForCard(instance, alice, first.id);
    // The page's image is shown through the media proxy (which keeps a copy), never at its URL.
    assert.match(card.image, new RegExp(`^${instance.origin}/media_proxy/cards/\\d+/image\\?sig=`));
    assert.deepEqual({ ...card, image: "(proxy)" }, {
      url: `${base}/og`,
      title: "Fish & Chips",
      description: "All about <fish>.",
      language: null,
      type: "link",
      authors: [],
      author_name: "",
      author_url: "",
      provider_name: "The Paper",
      provider_url: "",
      html: "",
      width: 640,
      height: 480,
      image: "(proxy)",
      image_description: "",
      embed_url: "",
      blurhash: null,
      published_at: null,
      missing_attribution: false,
    });
    const fetch = pages.requests.find((r) => r.path === "/og")!;
    assert.equal(fetch.userAgent, `Rookery/${ROOKERY_VERSION} (+${instance.origin}/) Bot`);
    assert.match(fetch.accept, /text\/html/);

    // A second status with the same link reuses the stored card, linked in
    // the posting request itself.
    const second = await postStatus(instance, bob, { status: `${base}/og is good` });
    assert.equal(second.card?.title, "Fish & Chips");
    assert.equal((await waitForCard(instance, bob, second.id)).title, "Fish & Chips");
    assert.equal(pages.count("/og"), 1);
    assert.deepEqual(await linkIds(`${base}/og`), [second.id, first.id]);
    assert.deepEqual(await linkIds(`${base}/other`), []);
    // Private statuses are not on the link timeline, even with the card.
    const priv = await postStatus(instance, alice, { status: `${base}/og`, visibility: "private" });
    await waitForCard(instance, alice, priv.id);
    assert.deepEqual(await linkIds(`${base}/og`), [second.id, first.id]);

    // <title> and meta description as fallbacks; redirects followed (the
    // card keeps the URL of the status); a page cut off after 1 MiB still
    // gives its card; the first link wins.
    const plain = await postStatus(instance, alice, { status: `${base}/plain and ${base}/og` });
    const plainCard = await waitForCard(instance, alice, plain.id);
    assert.equal(plainCard.title, "Plain page");
    assert.equal(plainCard.description, "Said plainly");
    assert.equal(plainCard.image, null);
    const redirected = await postStatus(instance, alice, { status: `${base}/redirect` });
    const redirectCard = await waitForCard(instance, alice, redirected.id);
    assert.equal(redirectCard.title, "Second page");
    assert.equal(redirectCard.url, `${base}/redirect`);
    const huge = await postStatus(instance, alice, { status: `${base}/huge` });
    assert.equal((await waitForCard(instance, alice, huge.id)).title, "Huge page");

    // No card: a page without a title, not HTML, a redirect loop, a 404;
    // media or a poll (nothing is even fetched).
    const none = [
      await postStatus(instance, alice, { status: `${base}/notitle` }),
      await postStatus(instance, alice, { status: `${base}/json` }),
      await postStatus(instance, alice, { status: `${base}/loop` }),
      await postStatus(instance, alice, { status: `${base}/missing` }),
      await postStatus(instance, alice, {
        status: `${base}/og?media`,
        media_ids: [await mediaRow(instance, alice)],
      }),
      await postStatus(instance, alice, {
        status: `${base}/og?poll`,
        poll: { options: ["yes", "no"], expires_in: 3600 },
      }),
    ];
    await jobsDrained(instance);
    for (const s of none) assert.equal((await getStatus(instance, alice, s.id)).card, null);
    assert.equal(pages.count("/notitle"), 1);
    assert.equal(pages.count("/og?media") + pages.count("/og?poll"), 0);
    assert.ok(pages.requests.filter((r) => r.path.startsWith("/loop")).length <= 4);

    // Editing the link replaces the card; removing it, or adding a poll,
    // removes the card at once.
    const edit = (id: string, body: Record<string, unknown>) =>
      callJson(instance, alice, "PUT", `/api/v1/statuses/${id}`, body);
    assert.equal((await edit(first.id, { status: `Now ${base}/plain` })).status, 200);
    await waitForCard(instance, alice, first.id, (c) => c?.title === "Plain page");
    assert.deepEqual(await linkIds(`${base}/og`), [second.id]);
    assert.deepEqual(await linkIds(`${base}/plain`), [plain.id, first.id]);
    const unlinked = await edit(first.id, { status: "No link any more" });
    assert.equal(unlinked.body.card, null);
    assert.equal((await getStatus(instance, alice, first.id)).card, null);
    const polled = await edit(plain.id, {
      status: `${base}/plain`,
      poll: { options: ["a", "b"], expires_in: 3600 },
    });
    assert.equal(polled.status, 200);
    assert.equal((await getStatus(instance, alice, plain.id)).card, null);
    assert.deepEqual(await linkIds(`${base}/plain`), []);
  } finally {
    await instance.close({ destroy: true });
    await pages.close();
  }
});

test("a page that gave no card is not fetched again for ten minutes; a stale card is kept meanwhile", async () => {
  const pages = await startPageServer();
  const instance = await startInstance();
  try {
    const { base } = pages;
    const alice = await createUser(instance, "alice");
    const db = instance.rookery.ctx.database;
    const post = async (status: string) => {
      const s = await postStatus(instance, alice, { status });
      await jobsDrained(instance);
      return s;
    };

    // The first post's job fetches the page and records the failure; the
    // next posts within the period queue nothing and fetch nothing.
    const first = await post(`${base}/missing`);
    assert.equal(pages.count("/missing"), 1);
    const [failure] = await db.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM preview_card_failures WHERE url = ${`${base}/missing`}`,
    );
    assert.equal(failure.n, 1);
    await post(`again ${base}/missing`);
    await post(`and again ${base}/missing`);
    assert.equal(pages.count("/missing"), 1);
    assert.equal((await getStatus(instance, alice, first.id)).card, null);

    // Once the period is over, the page is asked again.
    await db.rows(sql`UPDATE preview_card_failures SET failed_at = now() - interval '11 minutes'`);
    await post(`later ${base}/missing`);
    assert.equal(pages.count("/missing"), 2);

    // A stale card whose page now fails is kept, and linked at once.
    const og = await post(`${base}/og`);
    assert.equal((await waitForCard(instance, alice, og.id)).title, "Fish & Chips");
    await db.rows(sql`UPDATE preview_cards SET updated_at = now() - interval '15 days'`);
    await db.rows(sql`INSERT INTO preview_card_failures (url) VALUES (${`${base}/og`})`);
    const stale = await post(`still ${base}/og`);
    assert.equal(stale.card?.title, "Fish & Chips");
    assert.equal(pages.count("/og"), 1);

    // The worker's maintenance prunes failures past the period.
    await db.rows(sql`UPDATE preview_card_failures SET failed_at = now() - interval '11 minutes'`);
    await pruneCardFailures(db.db);
    const [left] = await db.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM preview_card_failures`,
    );
    assert.equal(left.n, 0);
  } finally {
    await instance.close({ destroy: true });
    await pages.close();
  }
});

test("remote statuses: mention and hashtag links are skipped, content warnings crawl nothing", async () => {
  const pages = await startPageServer();
  const instance = await startInstance();
  try {
    const { base } = pages;
    const reader = await createUser(instance, "reader");
    const db = instance.rookery.ctx.database.db;
    const remote = async (username: string) => {
      const id = newId();
      await db.insert(accounts).values({
        id,
        username,
        domain: "127.0.0.1",
        uri: `${base}/users/${username}`,
        url: `${base}/@${username}`,
        inboxUrl: `${base}/users/${username}/inbox`,
      });
      return id;
    };
    const author = await remote("author");
    const dave = await remote("dave");
    const [daveRow] = await db.select().from(accounts).where(eq(accounts.id, dave));
    assert.equal(daveRow.url, `${base}/@dave`);
    const ctx = instance.rookery.ctx;
    const content = sanitizeHtml(
      `<p><span class="h-card"><a href="${base}/@carol" class="u-url mention">@carol</a></span> ` +
        `<a href="${base}/tags/cats" class="mention hashtag" rel="tag">#cats</a> ` +
        `<a href="${base}/@dave">@dave</a> <a href="${base}/og?remote">a story</a></p>`,
    );
    const status = await createStatus(ctx, {
      local: false,
      accountId: author,
      uri: `${base}/users/author/statuses/1`,
      content,
      visibility: "public",
      mentionedAccountIds: [dave],
      tagNames: ["cats"],
    });
    const card = await waitForCard(instance, reader, status.id);
    assert.equal(card.url, `${base}/og?remote`);
    assert.equal(card.title, "Fish & Chips");

    // A content warning: Mastodon does not crawl the links of such remote posts.
    const hidden = await createStatus(ctx, {
      local: false,
      accountId: author,
      uri: `${base}/users/author/statuses/2`,
      content: `<p><a href="${base}/og?cw">link</a></p>`,
      spoilerText: "spoilers",
      visibility: "public",
    });

    // A remote edit changes the link: the card follows.
    await editRemoteStatus(ctx, {
      accountId: author,
      statusId: status.id,
      content: `<p><a href="${base}/plain?remote">another</a></p>`,
      spoilerText: "",
      sensitive: false,
      language: null,
      mentionedAccountIds: [],
      tagNames: [],
      media: [],
      poll: null,
      editedAt: new Date(),
    });
    await waitForCard(instance, reader, status.id, (c) => c?.title === "Plain page");
    await jobsDrained(instance);
    assert.equal((await getStatus(instance, reader, hidden.id)).card, null);
    for (const path of ["/@carol", "/tags/cats", "/@dave", "/og?cw"]) {
      assert.equal(pages.count(path), 0, `${path} is not fetched`);
    }
  } finally {
    await instance.close({ destroy: true });
    await pages.close();
  }
});
