/**
 * What a browser meets on every page and in the settings: /favicon.ico is
 * served (long cache, 304 on revalidation) and every page links it;
 * /settings sends to its first page, as Mastodon's does; the profile
 * settings page has the search-engine opt-out (`noindex`), which the
 * Account shows and the profile and post pages turn into
 * `<meta name="robots" content="noindex, noarchive">`, while
 * `update_credentials` leaves it alone, as Mastodon's does.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { includes, signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const ann = await createUser(instance, "ann");
const post = await postStatus(instance, ann, "hello, web");

const ROBOTS = '<meta name="robots" content="noindex, noarchive">';
const ICON_LINK = '<link rel="icon" href="/favicon.ico">';

test("/favicon.ico is served, cached and linked from every kind of page", async () => {
  const res = await instance.request("/favicon.ico");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/x-icon");
  assert.match(res.headers.get("cache-control")!, /^public, max-age=\d{6,}/);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.deepEqual([...bytes.slice(0, 4)], [0, 0, 1, 0], "an ICO file");
  assert.ok(bytes.length < 4096);
  const etag = res.headers.get("etag")!;
  const again = await instance.request("/favicon.ico", { headers: { "if-none-match": etag } });
  assert.equal(again.status, 304);
  await again.body?.cancel();

  for (const path of ["/", "/about", "/@ann", `/@ann/${post.id}`, "/auth/sign_in"]) {
    const page = await instance.request(path);
    assert.equal(page.status, 200, path);
    includes(await page.text(), ICON_LINK);
  }
});

test("/settings sends to the first settings page", async () => {
  for (const path of ["/settings", "/settings/"]) {
    const res = await instance.request(path, { redirect: "manual" });
    assert.equal(res.status, 301, path);
    assert.equal(
      new URL(res.headers.get("location")!, instance.origin).pathname,
      "/settings/profile",
    );
    await res.body?.cancel();
  }
  const session = await signInOverHttp(instance, "ann", "/settings/profile");
  const signedIn = await session.get("/settings");
  assert.equal(signedIn.status, 301);
  await signedIn.body?.cancel();
  const page = await session.get(signedIn.headers.get("location")!);
  assert.equal(page.status, 200);
  includes(await page.text(), ICON_LINK);
});

test("the profile page's search-engine opt-out sets noindex on the account and its pages", async () => {
  const session = await signInOverHttp(instance, "ann", "/settings/profile");
  const form = async () => await (await session.get("/settings/profile")).text();
  const noindexBox = /<input id="noindex" name="noindex" type="checkbox" value="1"( checked)?/;
  const account = () => ok(instance, ann, "GET", `/api/v1/accounts/${ann.id}`);
  const pages = async () =>
    await Promise.all(
      ["/@ann", `/@ann/${post.id}`].map(async (p) => await (await instance.request(p)).text()),
    );

  const before = noindexBox.exec(await form());
  assert.ok(before, "the switch is on the page");
  assert.equal(before[1], undefined, "off by default");
  assert.equal((await account()).noindex, false);
  for (const html of await pages()) assert.ok(!html.includes(ROBOTS));

  // The form as a browser posts it: every field, the checked boxes only.
  const saved = await session.post("/settings/profile", {
    display_name: "Ann",
    note: "",
    noindex: "1",
  });
  assert.equal(saved.status, 303);
  await saved.body?.cancel();
  assert.equal(noindexBox.exec(await form())![1], " checked");
  assert.equal((await account()).noindex, true);
  assert.equal(
    (await ok(instance, ann, "GET", "/api/v1/accounts/verify_credentials")).noindex,
    true,
  );
  for (const html of await pages()) includes(html, ROBOTS);

  // update_credentials does not take it (Mastodon's does not either).
  await ok(instance, ann, "PATCH", "/api/v1/accounts/update_credentials", { noindex: false });
  assert.equal((await account()).noindex, true);

  // A hand-made value of the wrong shape is refused and changes nothing.
  const refused = await session.post("/settings/profile", { "noindex[]": "1" });
  assert.equal(refused.status, 422);
  includes(await refused.text(), "The profile was not saved");
  assert.equal((await account()).noindex, true);

  // Unchecked: the box is absent from the post, and the opt-out ends.
  const cleared = await session.post("/settings/profile", { display_name: "Ann", note: "" });
  assert.equal(cleared.status, 303);
  await cleared.body?.cancel();
  assert.equal((await account()).noindex, false);
  for (const html of await pages()) assert.ok(!html.includes(ROBOTS));
  const anonymous = await callJson(instance, null, "GET", `/api/v1/accounts/${ann.id}`);
  assert.equal(anonymous.body.noindex, false);
});
