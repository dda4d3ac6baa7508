/**
 * The notification policy over HTTP: defaults, GET and PATCH/PUT of both
 * versions (v2 accept/filter/drop, v1 booleans), JSON and form bodies, bad
 * values (422 in Mastodon's shape, nothing changed), and the scope matrix of
 * every policy and request route.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { fixtures } from "../notifications/helpers.ts";
import { assertScopeMatrix, scopeFixtures, type ScopeRow } from "../oauth/scope_matrix.ts";

const DEFAULT_V2 = {
  for_not_following: "accept",
  for_not_followers: "accept",
  for_new_accounts: "accept",
  for_private_mentions: "filter",
  for_limited_accounts: "filter",
  summary: { pending_requests_count: 0, pending_notifications_count: 0 },
};

test("notification policy: v1 and v2 shapes, updates, bad values, scopes", async (t) => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const alice = await f.user("alice");
    const bob = await f.user("bob");

    await t.step("defaults, in both shapes", async () => {
      const v2 = await f.call(alice, "GET", "/api/v2/notifications/policy");
      assert.equal(v2.status, 200);
      assert.deepEqual(v2.body, DEFAULT_V2);
      assert.deepEqual(
        (await f.call(alice, "GET", "/api/v2_alpha/notifications/policy")).body,
        DEFAULT_V2,
      );
      const v1 = await f.call(alice, "GET", "/api/v1/notifications/policy");
      assert.equal(v1.status, 200);
      assert.deepEqual(v1.body, {
        filter_not_following: false,
        filter_not_followers: false,
        filter_new_accounts: false,
        filter_private_mentions: true,
        summary: { pending_requests_count: 0, pending_notifications_count: 0 },
      });
    });

    await t.step("v2 PATCH changes what is given, and only for the caller", async () => {
      const res = await f.call(alice, "PATCH", "/api/v2/notifications/policy", {
        for_not_following: "filter",
        for_new_accounts: "drop",
        unknown_thing: "drop",
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        ...DEFAULT_V2,
        for_not_following: "filter",
        for_new_accounts: "drop",
      });
      // A form body and PUT work too.
      const form = await instance.request("/api/v2/notifications/policy", {
        method: "PUT",
        headers: {
          Authorization: `Bearer ${alice.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: "for_limited_accounts=accept",
      });
      assert.equal(form.status, 200);
      assert.equal((await form.json()).for_limited_accounts, "accept");
      const v1 = await f.call(alice, "GET", "/api/v1/notifications/policy");
      assert.equal(v1.body.filter_not_following, true);
      assert.equal(v1.body.filter_new_accounts, true, "drop reads as filtering in v1");
      assert.equal(v1.body.filter_not_followers, false);
      assert.deepEqual((await f.call(bob, "GET", "/api/v2/notifications/policy")).body, DEFAULT_V2);
    });

    await t.step("bad values: 422, nothing changed", async () => {
      const before = (await f.call(alice, "GET", "/api/v2/notifications/policy")).body;
      const bad = await f.call(alice, "PATCH", "/api/v2/notifications/policy", {
        for_not_followers: "filter",
        for_private_mentions: "sideways",
      });
      assert.equal(bad.status, 422);
      assert.equal(
        bad.body.error,
        "Validation failed: For private mentions is not included in the list",
      );
      assert.deepEqual(bad.body.details, {
        for_private_mentions: [{
          error: "ERR_INCLUSION",
          description: "is not included in the list",
        }],
      });
      for (const value of [1, true, ["drop"], { a: "drop" }, "DROP", ""]) {
        const res = await f.call(alice, "PATCH", "/api/v2/notifications/policy", {
          for_not_following: value,
        });
        assert.equal(res.status, 422, JSON.stringify(value));
        assert.match(res.body.error, /^Validation failed: For not following/);
      }
      const v1bad = await f.call(alice, "PATCH", "/api/v1/notifications/policy", {
        filter_not_following: { nested: true },
      });
      assert.equal(v1bad.status, 422);
      assert.equal(v1bad.body.error, "Validation failed: Filter not following is invalid");
      assert.deepEqual((await f.call(alice, "GET", "/api/v2/notifications/policy")).body, before);
    });

    await t.step("v1 PATCH/PUT: booleans map to filter and accept", async () => {
      const res = await f.call(alice, "PUT", "/api/v1/notifications/policy", {
        filter_private_mentions: false,
        filter_not_followers: "1",
        filter_new_accounts: "false",
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        filter_not_following: true,
        filter_not_followers: true,
        filter_new_accounts: false,
        filter_private_mentions: false,
        summary: { pending_requests_count: 0, pending_notifications_count: 0 },
      });
      const v2 = (await f.call(alice, "GET", "/api/v2/notifications/policy")).body;
      assert.equal(v2.for_private_mentions, "accept");
      assert.equal(v2.for_not_followers, "filter");
      assert.equal(v2.for_new_accounts, "accept");
      assert.equal(v2.for_not_following, "filter");
      // A PATCH with nothing it knows changes nothing and answers the policy.
      const none = await f.call(alice, "PATCH", "/api/v1/notifications/policy", { x: 1 });
      assert.equal(none.status, 200);
      assert.equal(none.body.filter_not_following, true);
    });

    await t.step("scopes", async (t) => {
      const read = ["read:notifications"];
      const write = ["write:notifications"];
      const rows: ScopeRow[] = [
        { method: "GET", path: "/api/v1/notifications/policy", kind: "user", scopes: read },
        { method: "PATCH", path: "/api/v1/notifications/policy", kind: "user", scopes: write },
        { method: "PUT", path: "/api/v1/notifications/policy", kind: "user", scopes: write },
        { method: "GET", path: "/api/v2/notifications/policy", kind: "user", scopes: read },
        { method: "PATCH", path: "/api/v2/notifications/policy", kind: "user", scopes: write },
        { method: "PUT", path: "/api/v2/notifications/policy", kind: "user", scopes: write },
        { method: "GET", path: "/api/v1/notifications/requests", kind: "user", scopes: read },
        {
          method: "GET",
          path: "/api/v1/notifications/requests/merged",
          kind: "user",
          scopes: read,
        },
        { method: "GET", path: "/api/v1/notifications/requests/1", kind: "user", scopes: read },
        {
          method: "POST",
          path: "/api/v1/notifications/requests/1/accept",
          kind: "user",
          scopes: write,
        },
        {
          method: "POST",
          path: "/api/v1/notifications/requests/1/dismiss",
          kind: "user",
          scopes: write,
        },
        {
          method: "POST",
          path: "/api/v1/notifications/requests/accept",
          kind: "user",
          scopes: write,
        },
        {
          method: "POST",
          path: "/api/v1/notifications/requests/dismiss",
          kind: "user",
          scopes: write,
        },
      ];
      await assertScopeMatrix(
        t,
        (path, init) => instance.request(path, init),
        await scopeFixtures(instance),
        rows,
      );
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
