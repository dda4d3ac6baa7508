/** Lists over HTTP: CRUD, validation, ownership, members (follow rule, paging, limit=0). */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { follow, links, pathOf } from "./helpers.ts";

test("lists: create, show, update, delete, validation and ownership", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
    const created = await ok(instance, alice, "POST", "/api/v1/lists", { title: "Friends" });
    assert.deepEqual(Object.keys(created).sort(), ["exclusive", "id", "replies_policy", "title"]);
    assert.equal(created.title, "Friends");
    assert.equal(created.replies_policy, "list");
    assert.equal(created.exclusive, false);
    const second = await ok(instance, alice, "POST", "/api/v1/lists", {
      title: "Work",
      replies_policy: "followed",
      exclusive: true,
    });
    assert.equal(second.replies_policy, "followed");
    assert.equal(second.exclusive, true);

    const all = await ok<any[]>(instance, alice, "GET", "/api/v1/lists");
    assert.deepEqual(all.map((l) => l.id), [created.id, second.id]);
    assert.deepEqual(await ok(instance, alice, "GET", `/api/v1/lists/${created.id}`), created);

    const updated = await ok(instance, alice, "PUT", `/api/v1/lists/${created.id}`, {
      title: "Best friends",
      replies_policy: "none",
    });
    assert.equal(updated.title, "Best friends");
    assert.equal(updated.replies_policy, "none");
    assert.equal(updated.exclusive, false);

    // Validation.
    for (const body of [{}, { title: "" }, { title: "   " }]) {
      const res = await callJson(instance, alice, "POST", "/api/v1/lists", body);
      assert.equal(res.status, 422);
      assert.equal(res.body.error, "Validation failed: Title can't be blank");
    }
    const badPolicy = await callJson(instance, alice, "POST", "/api/v1/lists", {
      title: "x",
      replies_policy: "everyone",
    });
    assert.equal(badPolicy.status, 422);
    assert.match(badPolicy.body.error, /Replies policy is not included in the list/);
    const long = await callJson(instance, alice, "POST", "/api/v1/lists", {
      title: "x".repeat(5000),
    });
    assert.equal(long.status, 422);
    const badPut = await callJson(instance, alice, "PUT", `/api/v1/lists/${created.id}`, {
      title: "",
    });
    assert.equal(badPut.status, 422);

    // Someone else's list, a missing one, a malformed id: all 404, nothing changes.
    for (
      const [method, path, body] of [
        ["GET", `/api/v1/lists/${created.id}`],
        ["PUT", `/api/v1/lists/${created.id}`, { title: "mine now" }],
        ["DELETE", `/api/v1/lists/${created.id}`],
        ["GET", `/api/v1/lists/${created.id}/accounts`],
        ["POST", `/api/v1/lists/${created.id}/accounts`, { account_ids: [alice.id] }],
        ["GET", "/api/v1/lists/99999"],
        ["GET", "/api/v1/lists/abc"],
      ] as [string, string, Record<string, unknown>?][]
    ) {
      const res = await callJson(instance, bob, method, path, body);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error, "Record not found");
    }
    assert.deepEqual(await ok(instance, bob, "GET", "/api/v1/lists"), []);

    assert.deepEqual(await ok(instance, alice, "DELETE", `/api/v1/lists/${second.id}`), {});
    assert.equal(
      (await callJson(instance, alice, "GET", `/api/v1/lists/${second.id}`)).status,
      404,
    );

    // Scopes: read:lists to read, write:lists to change.
    const reader = await createUser(instance, "reader", { scopes: ["read:lists"] });
    assert.equal((await callJson(instance, reader, "GET", "/api/v1/lists")).status, 200);
    assert.equal(
      (await callJson(instance, reader, "POST", "/api/v1/lists", { title: "t" })).status,
      403,
    );
    assert.equal((await callJson(instance, null, "GET", "/api/v1/lists")).status, 401);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("lists: members must be followed; paging, limit=0, removal", async () => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const others = [];
    for (let i = 0; i < 4; i++) others.push(await createUser(instance, `friend${i}`));
    const stranger = await createUser(instance, "stranger");
    for (const o of others) await follow(instance, alice, o);
    const list = await ok(instance, alice, "POST", "/api/v1/lists", { title: "Friends" });
    const path = `/api/v1/lists/${list.id}/accounts`;

    const notFollowed = await callJson(instance, alice, "POST", path, {
      account_ids: [others[0].id, stranger.id],
    });
    assert.equal(notFollowed.status, 404);
    assert.deepEqual(await ok(instance, alice, "GET", path), [], "all or nothing");
    assert.equal(
      (await callJson(instance, alice, "POST", path, { account_ids: ["999999999"] })).status,
      404,
    );

    assert.deepEqual(
      await ok(instance, alice, "POST", path, { account_ids: others.map((o) => o.id) }),
      {},
    );
    const again = await callJson(instance, alice, "POST", path, { account_ids: [others[0].id] });
    assert.equal(again.status, 422);
    assert.equal(again.body.error, "Validation failed: Account has already been taken");

    const firstPage = await callJson<any[]>(instance, alice, "GET", `${path}?limit=3`);
    assert.equal(firstPage.body.length, 3);
    const l = links(firstPage.headers);
    assert.match(l.next!, /max_id=/);
    assert.match(l.prev!, /since_id=/);
    const rest = await ok<any[]>(instance, alice, "GET", pathOf(l.next!));
    assert.equal(rest.length, 1);
    const everyone = await callJson<any[]>(instance, alice, "GET", `${path}?limit=0`);
    assert.equal(everyone.body.length, 4);
    assert.equal(everyone.headers.get("link"), null);
    assert.deepEqual(
      new Set([...firstPage.body, ...rest].map((a) => a.id)),
      new Set(others.map((o) => o.id)),
    );

    assert.deepEqual(
      await ok(instance, alice, "DELETE", path, { account_ids: [others[0].id, "nope"] }),
      {},
    );
    assert.equal((await ok<any[]>(instance, alice, "GET", `${path}?limit=0`)).length, 3);
    const tooMany = await callJson(instance, alice, "POST", path, {
      account_ids: Array.from({ length: 300 }, (_, i) => String(i + 1)),
    });
    assert.equal(tooMany.status, 422);
  } finally {
    await instance.close({ destroy: true });
  }
});
