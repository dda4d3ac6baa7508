/**
 * oEmbed: GET /api/oembed for public and unlisted statuses of local
 * accounts (404 for everything else), the embed page its iframe shows (which
 * other sites may frame), and the discovery link on the status page.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { accounts } from "../../db/schema/mod.ts";

test("oEmbed and the embed page", async (t) => {
  const instance = await startInstance({ env: { AUTHORIZED_FETCH: "true" } });
  try {
    const { origin } = instance;
    const alice = await createUser(instance, "alice", {
      account: { displayName: "Alice <script>alert(1)</script>" },
    });
    await createUser(instance, "mallory"); // the direct post mentions her
    const media = await mediaRow(instance, alice);
    const post = await postStatus(instance, alice, "Hello <b>world</b> #embed", {
      visibility: "public",
      media_ids: [media],
    });
    const unlisted = await postStatus(instance, alice, "quiet", { visibility: "unlisted" });
    const warned = await postStatus(instance, alice, "behind it", {
      visibility: "public",
      spoiler_text: "cw <here>",
    });
    const priv = await postStatus(instance, alice, "friends", { visibility: "private" });
    const direct = await postStatus(instance, alice, "@mallory psst", { visibility: "direct" });
    const deleted = await postStatus(instance, alice, "gone soon", { visibility: "public" });
    await ok(instance, alice, "DELETE", `/api/v1/statuses/${deleted.id}`);
    const oembed = (url: string, extra = "") =>
      callJson(instance, null, "GET", `/api/oembed?url=${encodeURIComponent(url)}${extra}`);

    await t.step("GET /api/oembed: the rich answer for a public status", async () => {
      const res = await oembed(post.url);
      assert.equal(res.status, 200);
      const embedUrl = `${origin}/@alice/${post.id}/embed`;
      assert.deepEqual(res.body, {
        type: "rich",
        version: "1.0",
        title: "Post by Alice <script>alert(1)</script>",
        author_name: "Alice <script>alert(1)</script>",
        author_url: `${origin}/@alice`,
        provider_name: instance.domain,
        provider_url: `${origin}/`,
        cache_age: 86400,
        html:
          `<iframe src="${embedUrl}" class="mastodon-embed" style="max-width: 100%; border: 0" ` +
          `width="400" allowfullscreen="allowfullscreen"></iframe>`,
        width: 400,
        height: null,
      });
      // The id URL, a trailing slash, sizes; junk sizes fall back.
      const sized = await oembed(post.uri + "/", "&maxwidth=550&maxheight=300");
      assert.equal(sized.status, 200);
      assert.equal(sized.body.width, 550);
      assert.equal(sized.body.height, 300);
      assert.match(sized.body.html, /width="550" height="300"/);
      const junk = await oembed(post.url, "&maxwidth=-5&maxheight=abc%22");
      assert.equal(junk.body.width, 400);
      assert.equal(junk.body.height, null);
      assert.equal((await oembed(unlisted.url)).status, 200);
      assert.equal((await oembed(post.url, "&format=json")).status, 200);
      assert.equal((await oembed(post.url, "&format=xml")).status, 501);
    });

    await t.step("404 for hidden, deleted, foreign and malformed URLs", async () => {
      for (
        const url of [
          priv.url,
          direct.url,
          deleted.url,
          `${origin}/@alice/999999`,
          `${origin}/@mallory/${post.id}`,
          `https://elsewhere.example/@alice/${post.id}`,
          `${origin}/@alice`,
          `${origin}/@alice/${post.id}/embed`,
          "not a url",
          `${origin}/@alice/%E0%A4%A`,
        ]
      ) {
        const res = await oembed(url);
        assert.equal(res.status, 404, url);
        assert.deepEqual(res.body, { error: "Record not found" });
      }
      assert.equal((await callJson(instance, null, "GET", "/api/oembed")).status, 404);
      // A suspended author's posts are not embedded.
      const sam = await createUser(instance, "sam");
      const samPost = await postStatus(instance, sam, "soon suspended", { visibility: "public" });
      assert.equal((await oembed(samPost.url)).status, 200);
      await instance.rookery.ctx.database.db.update(accounts).set({ suspendedAt: new Date() })
        .where(eq(accounts.id, sam.id));
      assert.equal((await oembed(samPost.url)).status, 404);
      const samPage = await instance.request(`/@sam/${samPost.id}/embed`);
      assert.equal(samPage.status, 404);
      await samPage.body?.cancel();
    });

    await t.step("the embed page: framable, escaped, with media and content warning", async () => {
      const res = await instance.request(`/@alice/${post.id}/embed`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-frame-options"), null);
      assert.match(res.headers.get("content-security-policy")!, /frame-ancestors \*/);
      const html = await res.text();
      assert.match(html, /Alice &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
      assert.doesNotMatch(html, /<script>/);
      assert.match(html, /@alice@/);
      assert.match(html, /Hello &lt;b&gt;world&lt;\/b&gt;/);
      assert.match(html, /<img src="[^"]+small\.png" alt="a picture">/);
      assert.ok(html.includes(`href="${post.url}"`));

      const cw = await (await instance.request(`/@alice/${warned.id}/embed`)).text();
      assert.match(cw, /<details><summary>cw &lt;here&gt;<\/summary>/);

      for (const id of [priv.id, direct.id, deleted.id, "999999"]) {
        const hidden = await instance.request(`/@alice/${id}/embed`);
        assert.equal(hidden.status, 404, id);
        await hidden.body?.cancel();
      }
    });

    await t.step("discovery link on the status page", async () => {
      const page = await (await instance.request(`/@alice/${post.id}`)).text();
      const href = `${origin}/api/oembed?url=${encodeURIComponent(`${origin}/@alice/${post.id}`)}`;
      assert.ok(
        page.includes(`<link rel="alternate" type="application/json+oembed" href="${href}">`),
        page,
      );
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
