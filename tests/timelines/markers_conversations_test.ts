/** Markers (versions, 409 on a stale concurrent update) and direct-message conversations. */
import assert from "node:assert/strict";
import { POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { MarkerConflictError, saveMarkers, writeMarker } from "../../actors/timelines/markers.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { follow, links, pathOf } from "./helpers.ts";
import { eventually } from "../fixtures/wait.ts";

test("markers: get, set, versions, validation, 409 on a stale update", async (t) => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const { database } = instance.rookery.ctx;
    assert.deepEqual(await ok(instance, alice, "GET", "/api/v1/markers"), {});
    assert.deepEqual(await ok(instance, alice, "GET", "/api/v1/markers?timeline[]=home"), {});

    const set = await ok(instance, alice, "POST", "/api/v1/markers", {
      home: { last_read_id: "100" },
    });
    assert.deepEqual(Object.keys(set), ["home"]);
    assert.equal(set.home.last_read_id, "100");
    assert.equal(set.home.version, 0);
    assert.match(set.home.updated_at, /^\d{4}-\d\d-\d\dT/);
    const both = await ok(instance, alice, "POST", "/api/v1/markers", {
      home: { last_read_id: "101" },
      notifications: { last_read_id: "7" },
    });
    assert.equal(both.home.version, 1);
    assert.equal(both.notifications.version, 0);
    const same = await ok(instance, alice, "POST", "/api/v1/markers", {
      home: { last_read_id: "101" },
    });
    assert.equal(same.home.version, 1, "an unchanged value keeps its version");
    const got = await ok(
      instance,
      alice,
      "GET",
      "/api/v1/markers?timeline[]=home&timeline[]=notifications&timeline[]=bogus",
    );
    assert.deepEqual(Object.keys(got).sort(), ["home", "notifications"]);
    assert.equal(got.home.last_read_id, "101");

    const blank = await callJson(instance, alice, "POST", "/api/v1/markers", { home: {} });
    assert.equal(blank.status, 422);
    assert.equal(blank.body.error, "Validation failed: Last read can't be blank");
    const huge = await callJson(instance, alice, "POST", "/api/v1/markers", {
      home: { last_read_id: "9".repeat(1000) },
    });
    assert.equal(huge.status, 422);
    // A scalar in place of the hash is dropped, as Rails' strong parameters
    // drop it (Mastodon answers 200 and changes nothing).
    const scalar = await callJson(instance, alice, "POST", "/api/v1/markers", { home: "x" });
    assert.equal(scalar.status, 200, JSON.stringify(scalar.body));
    const kept = await ok(instance, alice, "GET", "/api/v1/markers?timeline[]=home");
    assert.equal(kept.home.last_read_id, "101");

    // The optimistic write refuses a version that is no longer current.
    await assert.rejects(
      () => writeMarker(database.db, alice.userId, "home", "200", 0),
      MarkerConflictError,
    );
    await assert.rejects(
      () => writeMarker(database.db, alice.userId, "home", "200", null),
      MarkerConflictError,
      "creating a marker someone else just created",
    );

    // Two concurrent updates: each answer is 200 or 409, and every 200 counted once.
    const before = (await ok(instance, alice, "GET", "/api/v1/markers?timeline[]=home")).home;
    const answers = await Promise.all(
      ["300", "301"].map((id) =>
        callJson(instance, alice, "POST", "/api/v1/markers", { home: { last_read_id: id } })
      ),
    );
    for (const a of answers) {
      assert.ok(a.status === 200 || a.status === 409, `status ${a.status}`);
      if (a.status === 409) {
        assert.deepEqual(a.body, { error: "Conflict during update, please try again" });
      }
    }
    const after = (await ok(instance, alice, "GET", "/api/v1/markers?timeline[]=home")).home;
    assert.equal(after.version, before.version + answers.filter((a) => a.status === 200).length);

    // Force the race: another writer updates the row and holds it until our
    // request has read the old version and waits on the row; then commits.
    await t.step({
      name: "a request that waited on the row answers 409",
      ...POSTGRES_ONLY,
      fn: async () => {
        const pg = database.pg!;
        const request = pg.begin(async (tx) => {
          await tx`UPDATE markers SET version = version + 1, last_read_id = '400'
          WHERE user_id = ${alice.userId} AND timeline = 'home'`;
          const pending = callJson(instance, alice, "POST", "/api/v1/markers", {
            home: { last_read_id: "401" },
          });
          await eventually("the request to wait on the marker row", async () => {
            const [{ n }] = await pg`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`;
            return n > 0;
          });
          // Wrapped, so that the transaction commits before the request is awaited.
          return { pending };
        });
        const answer = await (await request).pending;
        assert.equal(answer.status, 409);
        assert.deepEqual(answer.body, { error: "Conflict during update, please try again" });
        const stored = (await ok(instance, alice, "GET", "/api/v1/markers?timeline[]=home")).home;
        assert.equal(stored.last_read_id, "400", "the stale write changed nothing");
      },
    });

    const saved = await saveMarkers(database.db, alice.userId, { notifications: "8" });
    assert.equal(saved[0].version, 1);
    const reader = await createUser(instance, "reader", { scopes: ["read:statuses"] });
    assert.equal((await callJson(instance, reader, "GET", "/api/v1/markers")).status, 200);
    assert.equal(
      (await callJson(instance, reader, "POST", "/api/v1/markers", { home: { last_read_id: "1" } }))
        .status,
      403,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});

test("conversations: participants, unread, read, remove, paging, deleted statuses", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob, carol, dave] = await Promise.all(
      ["alice", "bob", "carol", "dave"].map((n) => createUser(instance, n)),
    );
    // Everyone follows those who write to them first: a stranger's direct message is
    // held back by the notification policy, and out of the conversations, until the
    // request is accepted (tests/notification_policy/conversations_test.ts).
    await follow(instance, bob, alice);
    await follow(instance, carol, alice);
    await follow(instance, alice, dave);
    const first = await postStatus(instance, alice, "@bob @carol hi both", {
      visibility: "direct",
    });
    const bobs = await ok<any[]>(instance, bob, "GET", "/api/v1/conversations");
    assert.equal(bobs.length, 1);
    assert.equal(bobs[0].unread, true);
    assert.equal(bobs[0].last_status.id, first.id);
    assert.deepEqual(
      new Set(bobs[0].accounts.map((a: any) => a.id)),
      new Set([alice.id, carol.id]),
    );
    const alices = await ok<any[]>(instance, alice, "GET", "/api/v1/conversations");
    assert.equal(alices[0].unread, false, "the author has read what they wrote");
    assert.deepEqual(
      new Set(alices[0].accounts.map((a: any) => a.id)),
      new Set([bob.id, carol.id]),
    );
    assert.deepEqual(await ok(instance, dave, "GET", "/api/v1/conversations"), []);

    const reply = await postStatus(instance, bob, "@alice @carol hello", {
      visibility: "direct",
      in_reply_to_id: first.id,
    });
    const bobsNow = await ok<any[]>(instance, bob, "GET", "/api/v1/conversations");
    assert.equal(bobsNow.length, 1, "the same conversation");
    assert.equal(bobsNow[0].id, bobs[0].id);
    assert.equal(bobsNow[0].last_status.id, reply.id);
    assert.equal(bobsNow[0].unread, false);
    const alicesNow = await ok<any[]>(instance, alice, "GET", "/api/v1/conversations");
    assert.equal(alicesNow[0].unread, true);

    const read = await ok(instance, alice, "POST", `/api/v1/conversations/${alicesNow[0].id}/read`);
    assert.equal(read.unread, false);
    assert.equal(read.last_status.id, reply.id);
    for (
      const [method, path] of [
        ["POST", `/api/v1/conversations/${alicesNow[0].id}/read`],
        ["DELETE", `/api/v1/conversations/${alicesNow[0].id}`],
        ["POST", "/api/v1/conversations/abc/read"],
      ]
    ) {
      assert.equal((await callJson(instance, dave, method, path)).status, 404, `${method} ${path}`);
    }

    // Deleting the latest status moves the conversation back to the one before.
    await ok(instance, bob, "DELETE", `/api/v1/statuses/${reply.id}`);
    const afterDelete = await ok<any[]>(instance, alice, "GET", "/api/v1/conversations");
    assert.equal(afterDelete[0].last_status.id, first.id);

    // Paging by latest status, with Link headers.
    for (let i = 0; i < 3; i++) {
      await postStatus(instance, dave, `@alice note ${i}`, { visibility: "direct" });
    }
    const page = await callJson<any[]>(instance, alice, "GET", "/api/v1/conversations?limit=2");
    assert.equal(page.body.length, 2);
    const next = links(page.headers).next!;
    assert.match(next, /max_id=/);
    const rest = await ok<any[]>(instance, alice, "GET", pathOf(next));
    assert.equal(rest.length, 2);
    assert.equal(rest[1].last_status.id, first.id);

    assert.deepEqual(
      await ok(
        instance,
        carol,
        "DELETE",
        `/api/v1/conversations/${
          (await ok<any[]>(instance, carol, "GET", "/api/v1/conversations"))[0].id
        }`,
      ),
      {},
    );
    assert.deepEqual(await ok(instance, carol, "GET", "/api/v1/conversations"), []);
    const writer = await createUser(instance, "writer", { scopes: ["write:statuses"] });
    assert.equal((await callJson(instance, writer, "GET", "/api/v1/conversations")).status, 403);
  } finally {
    await instance.close({ destroy: true });
  }
});
