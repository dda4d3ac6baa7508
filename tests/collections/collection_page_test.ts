/**
 * The web page of a collection (GET /@:username/collections/:id): name,
 * escaped description, hashtag, the accepted members linking to their
 * profiles, the ActivityPub alternate; 404 pages for an unknown id, another
 * username, a deleted collection, and a browser the owner blocks.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in the page`);
}

test("collection page: members, metadata and the 404 cases", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    const [alice, bob, carol, mallory] = await Promise.all(
      ["alice", "bob", "carol", "mallory"].map((n) => createUser(instance, n)),
    );
    const { collection } = await ok(instance, alice, "POST", "/api/v1/collections", {
      name: "Nice <people>",
      description: "Accounts I <b>like</b>",
      tag_name: "starter",
      account_ids: [bob.id, carol.id],
    });
    const path = `/@alice/collections/${collection.id}`;

    await t.step("the page lists the members and links its documents", async () => {
      const res = await instance.request(path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      const html = await res.text();
      includes(html, "<h1>Nice &lt;people&gt;</h1>");
      includes(html, "Accounts I &lt;b&gt;like&lt;/b&gt;");
      includes(html, `href="${instance.origin}/tags/starter"`);
      includes(html, `href="${instance.origin}/@bob"`);
      includes(html, `href="${instance.origin}/@carol"`);
      includes(
        html,
        `<link rel="alternate" type="application/activity+json" href="${instance.origin}/users/alice/collections/${collection.id}"`,
      );
      includes(html, `<link rel="canonical" href="${instance.origin}${path}"`);
      assert.ok(!html.includes("<b>like</b>"));
    });

    await t.step("404 pages: unknown id, another username, a blocked browser", async () => {
      assert.equal((await instance.request("/@alice/collections/999999")).status, 404);
      assert.equal((await instance.request(`/@bob/collections/${collection.id}`)).status, 404);
      await ok(instance, alice, "POST", `/api/v1/accounts/${mallory.id}/block`);
      const session = await signInOverHttp(instance, "mallory", "/");
      const blocked = await session.get(path);
      assert.equal(blocked.status, 404);
      await blocked.body?.cancel();
      const other = await signInOverHttp(instance, "carol", "/");
      const seen = await other.get(path);
      assert.equal(seen.status, 200);
      await seen.body?.cancel();
    });

    await t.step("the profile lists it, unless the owner hides featured things", async () => {
      const profile = await (await instance.request("/@alice")).text();
      includes(profile, `<a href="${instance.origin}${path}">Nice &lt;people&gt;</a>`);
      await ok(instance, alice, "PATCH", "/api/v1/profile", { show_featured: false });
      const hidden = await (await instance.request("/@alice")).text();
      assert.ok(!hidden.includes(path));
      await ok(instance, alice, "PATCH", "/api/v1/profile", { show_featured: true });
    });

    await t.step("a deleted collection is gone", async () => {
      await ok(instance, alice, "DELETE", `/api/v1/collections/${collection.id}`);
      const res = await instance.request(path);
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
