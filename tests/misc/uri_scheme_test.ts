/**
 * The URI scheme of local objects (model/uris.ts) agrees with itself: the
 * URIs it fills in are the paths Fedify's dispatchers are registered at,
 * and the ids it makes under an actor's IRI are the ones those paths give.
 * A real instance then answers at the URIs a new account and status store.
 */
import assert from "node:assert/strict";
import { activityIds, LOCAL_PATHS, localUris } from "../../model/uris.ts";
import { startInstance, test } from "../harness.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

const ORIGIN = "https://social.example";

test("localUris fills LOCAL_PATHS; ids under an actor match the paths", () => {
  const uris = localUris(ORIGIN);
  const fill = (template: string, id = "") =>
    ORIGIN + template.replace("{identifier}", "alice").replace("{id}", id);
  assert.equal(uris.actor("alice"), fill(LOCAL_PATHS.actor));
  assert.equal(uris.inbox("alice"), fill(LOCAL_PATHS.inbox));
  assert.equal(uris.sharedInbox(), fill(LOCAL_PATHS.sharedInbox));
  assert.equal(uris.outbox("alice"), fill(LOCAL_PATHS.outbox));
  assert.equal(uris.followers("alice"), fill(LOCAL_PATHS.followers));
  assert.equal(uris.following("alice"), fill(LOCAL_PATHS.following));
  assert.equal(uris.featured("alice"), fill(LOCAL_PATHS.featured));
  assert.equal(uris.featuredTags("alice"), fill(LOCAL_PATHS.featuredTags));
  assert.equal(uris.status("alice", "1"), fill(LOCAL_PATHS.status, "1"));
  const actor = uris.actor("alice");
  assert.equal(activityIds.boost(actor, "2"), activityIds.activity(uris.status("alice", "2")));
  assert.equal(activityIds.quoteStamp(actor, "3"), fill(LOCAL_PATHS.quoteAuthorization, "3"));
  assert.ok(activityIds.isFollow(activityIds.follow(actor, "4")));
  // Under "" the same scheme gives the paths pages link to.
  assert.equal(localUris("").profile("alice", "media"), "/@alice/media");
  assert.equal(localUris("").tag("café"), "/tags/caf%C3%A9");
});

test("an instance serves its actor and status at the URIs they store", async () => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const status = await postStatus(a, alice, "hello");
    const uris = localUris(a.origin);
    assert.equal(status.uri, uris.status("alice", status.id));
    assert.equal(status.url, uris.statusPage("alice", status.id));
    assert.equal(status.account.url, uris.profile("alice"));
    const ap = { Accept: "application/activity+json" };
    for (const [url, type] of [[uris.actor("alice"), "Person"], [status.uri, "Note"]]) {
      const res = await a.request(url, { headers: ap });
      assert.equal(res.status, 200, url);
      const body = await res.json();
      assert.equal(body.id, url);
      assert.equal(body.type, type);
    }
  } finally {
    await a.close({ destroy: true });
  }
});
