/**
 * A post's edit history for visitors, over HTTP: the public post page links
 * "Edited" to /statuses/:id/history, which shows a signed-out visitor the
 * versions GET /api/v1/statuses/:id/history gives anyone (newest first,
 * kept out of search engines); a post a visitor may not see, a boost and a missing id are the
 * same 404; a signed-in browser gets the web app's page at the same path.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
const edited = await postStatus(instance, ann.token, "First words, public");
await ok(instance, ann.token, "PUT", `/api/v1/statuses/${edited.id}`, {
  status: "Second words, public",
  spoiler_text: "A warning <b>bold</b>",
});
const hidden = await postStatus(instance, ann.token, "Followers only, first", {
  visibility: "private",
});
await ok(instance, ann.token, "PUT", `/api/v1/statuses/${hidden.id}`, {
  status: "Followers only, second",
  visibility: "private",
});
const boost = await ok(instance, bob.token, "POST", `/api/v1/statuses/${edited.id}/reblog`);

async function visit(path: string): Promise<{ status: number; html: string }> {
  const res = await instance.request(path, { headers: { accept: "text/html" } });
  return { status: res.status, html: await res.text() };
}

test("a visitor follows Edited to the post's history", async (t) => {
  await t.step("the public post page links it", async () => {
    const { html } = await visit(`/@ann/${edited.id}`);
    assert.ok(html.includes(`<a href="/statuses/${edited.id}/history">Edited</a>`), html);
  });

  await t.step("the history: the API's versions, newest first", async () => {
    const { status, html } = await visit(`/statuses/${edited.id}/history`);
    assert.equal(status, 200);
    const versions = await ok(instance, null, "GET", `/api/v1/statuses/${edited.id}/history`);
    assert.equal(versions.length, 2);
    const second = html.indexOf("Second words, public");
    const first = html.indexOf("First words, public");
    assert.ok(second > 0 && first > second, "newest first");
    assert.ok(html.includes("Current version") && html.includes("Original"));
    // The warning is text, escaped; the page stays out of search engines.
    assert.ok(html.includes("A warning &lt;b&gt;bold&lt;/b&gt;"));
    assert.ok(html.includes('<meta name="robots" content="noindex, noarchive"'));
    assert.ok(html.includes(`<a href="${edited.url}">Back to the post</a>`));
    assert.ok(html.includes('<a href="/auth/sign_in">Sign in</a>'), "the visitors' shell");
  });

  await t.step("what a visitor may not see is not found, as a missing post", async () => {
    for (const id of [hidden.id, boost.id, "99999999999", "9999999999999999999"]) {
      const { status, html } = await visit(`/statuses/${id}/history`);
      assert.equal(status, 404, id);
      assert.ok(!html.includes("Followers only"));
    }
    const api = await instance.request(`/api/v1/statuses/${hidden.id}/history`);
    assert.equal(api.status, 404);
    await api.body?.cancel();
  });

  await t.step("a signed-in browser gets the web app's history", async () => {
    const session = await signInOverHttp(instance, "bob", "/");
    const res = await session.get(`/statuses/${edited.id}/history`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.includes('<nav aria-label="Main">'), "the app's navigation");
    assert.ok(html.includes("Second words, public"));
    // The author sees their followers-only post's history there too.
    const own = await signInOverHttp(instance, "ann", "/");
    const mine = await own.get(`/statuses/${hidden.id}/history`);
    assert.ok((await mine.text()).includes("Followers only, first"));
  });
});
