/**
 * The outbox as a peer reads it: an OrderedCollection whose `first` page and
 * the pages after it hold the account's public and unlisted posts as Create
 * of their Note and its boosts as Announce, newest first, 20 per page;
 * private, direct and deleted posts never appear.
 */
import assert from "node:assert/strict";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { AP_ACCEPT } from "../federation/helpers.ts";

async function get(instance: TestInstance, url: string) {
  const res = await instance.request(url, { headers: { Accept: AP_ACCEPT } });
  assert.equal(res.status, 200, `${url} answered ${res.status}`);
  assert.match(res.headers.get("content-type") ?? "", /activity\+json|ld\+json/);
  return await json(res);
}

test("outbox pages: public and unlisted posts as Create, boosts as Announce, 20 per page", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const bobs = await postStatus(a, bob, "bob's post");
    const posted: { uri: string; kind: "public" | "unlisted" | "boost" }[] = [];
    for (let i = 0; i < 19; i++) {
      posted.push({ uri: (await postStatus(a, alice, `public ${i}`)).uri, kind: "public" });
    }
    const hidden = [
      await postStatus(a, alice, "followers only", { visibility: "private" }),
      await postStatus(a, alice, `@bob just us`, { visibility: "direct" }),
    ];
    const gone = await postStatus(a, alice, "deleted soon");
    await ok(a, alice, "DELETE", `/api/v1/statuses/${gone.id}`);
    const quiet = await postStatus(a, alice, "unlisted one", { visibility: "unlisted" });
    posted.push({ uri: quiet.uri, kind: "unlisted" });
    const boost = await ok(a, alice, "POST", `/api/v1/statuses/${bobs.id}/reblog`);
    posted.push({ uri: boost.uri, kind: "boost" });
    const expected = posted.toReversed();

    const outbox = await get(a, "/users/alice/outbox");
    assert.equal(outbox.type, "OrderedCollection");
    assert.equal(outbox.id, `${a.origin}/users/alice/outbox`);
    const account = await ok(a, alice, "GET", "/api/v1/accounts/verify_credentials");
    assert.equal(outbox.totalItems, account.statuses_count);

    const first = await get(a, outbox.first);
    assert.equal(first.type, "OrderedCollectionPage");
    assert.equal(first.orderedItems.length, 20);
    assert.ok(first.next, "a second page");
    const second = await get(a, first.next);
    assert.equal(second.orderedItems.length, 1);
    assert.equal(second.next, undefined);
    const items = [...first.orderedItems, ...second.orderedItems];

    // Newest first, exactly the visible ones.
    assert.deepEqual(
      items.map((x: any) => x.type === "Announce" ? x.id : x.object.id),
      expected.map((p) => p.uri),
    );
    const announce = items[0];
    assert.equal(announce.type, "Announce");
    assert.equal(announce.actor, `${a.origin}/users/alice`);
    assert.equal(announce.object, bobs.uri);
    const unlisted = items[1];
    assert.equal(unlisted.type, "Create");
    assert.equal(unlisted.id, `${quiet.uri}/activity`);
    assert.equal(unlisted.actor, `${a.origin}/users/alice`);
    assert.equal(unlisted.object.type, "Note");
    assert.match(unlisted.object.content, /unlisted one/);
    assert.equal(unlisted.object.attributedTo, `${a.origin}/users/alice`);
    assert.ok(
      [unlisted.object.cc].flat().includes("as:Public") ||
        [unlisted.object.cc].flat().includes("https://www.w3.org/ns/activitystreams#Public"),
    );
    const oldest = items[items.length - 1];
    assert.equal(oldest.type, "Create");
    assert.match(oldest.object.content, /public 0/);

    const everything = JSON.stringify(items);
    for (const s of [...hidden, gone]) assert.ok(!everything.includes(s.uri), `${s.uri} listed`);

    // A cursor that is not ours is a 404; an unknown account has no outbox.
    const bad = await a.request("/users/alice/outbox?cursor=x'; drop", {
      headers: { Accept: AP_ACCEPT },
    });
    assert.equal(bad.status, 404);
    await bad.body?.cancel();
    const nobody = await a.request("/users/nobody/outbox?cursor=first", {
      headers: { Accept: AP_ACCEPT },
    });
    assert.equal(nobody.status, 404);
    await nobody.body?.cancel();
  } finally {
    await a.close({ destroy: true });
  }
});
