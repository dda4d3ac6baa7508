/**
 * POST/GET/PUT/DELETE /api/v1/push/subscription over HTTP: one subscription
 * per token, replaced by a new POST; alerts (admin ones only for staff),
 * policy and `standard`; hostile input (bad endpoint, bad keys, someone
 * else's token, no `push` scope, form and query bodies); the VAPID key in
 * the app and instance entities; a revoked token's subscription goes.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { call, callJson } from "../fixtures/api.ts";
import { createToken, createUser } from "../fixtures/users.ts";
import { users, webPushSubscriptions } from "../../db/schema/mod.ts";
import { createAccessToken, createApplication } from "../../actors/oauth/tokens.ts";
import { uaKeys } from "./helpers.ts";

const PATH = "/api/v1/push/subscription";
const PUSH_SCOPES = ["read", "write", "follow", "push"];

test("push subscription API", async (t) => {
  const instance = await startInstance();
  try {
    const { db } = instance.rookery.ctx.database;
    const alice = await createUser(instance, "alice", { scopes: PUSH_SCOPES });
    const keys = uaKeys();
    const valid = (extra: Record<string, unknown> = {}) => ({
      subscription: {
        endpoint: "https://push.example/sub/1",
        keys: { p256dh: keys.p256dh, auth: keys.auth },
      },
      ...extra,
    });
    const instanceKey = (await callJson(instance, null, "GET", "/api/v2/instance")).body
      .configuration.vapid.public_key as string;

    await t.step("the VAPID key is in the instance, the apps and every subscription", async () => {
      assert.match(instanceKey, /^B[A-Za-z0-9_-]{86}=$/);
      const raw = atob(instanceKey.replaceAll("-", "+").replaceAll("_", "/"));
      assert.equal(raw.length, 65);
      assert.equal(raw.charCodeAt(0), 4);
      const app = await callJson(instance, null, "POST", "/api/v1/apps", {
        client_name: "pusher",
        redirect_uris: "urn:ietf:wg:oauth:2.0:oob",
        scopes: "read push",
      });
      assert.equal(app.status, 200);
      assert.equal(app.body.vapid_key, instanceKey);
      const verified = await callJson(instance, alice, "GET", "/api/v1/apps/verify_credentials");
      assert.equal(verified.status, 200);
      assert.equal(verified.body.vapid_key, instanceKey);
    });

    await t.step("none yet: GET and PUT 404, DELETE 200", async () => {
      const get = await callJson(instance, alice, "GET", PATH);
      assert.equal(get.status, 404);
      assert.deepEqual(get.body, { error: "Record not found" });
      const put = await callJson(instance, alice, "PUT", PATH, { data: { policy: "all" } });
      assert.equal(put.status, 404);
      const del = await callJson(instance, alice, "DELETE", PATH);
      assert.equal(del.status, 200);
      assert.deepEqual(del.body, {});
    });

    let firstId = 0;
    await t.step("POST creates it with the alerts and policy given", async () => {
      const res = await callJson(
        instance,
        alice,
        "POST",
        PATH,
        valid({
          data: {
            alerts: { mention: true, follow: "1", favourite: false, "admin.sign_up": true },
            policy: "followed",
          },
        }),
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const body = res.body;
      assert.equal(typeof body.id, "number");
      firstId = body.id;
      assert.equal(body.endpoint, "https://push.example/sub/1");
      assert.equal(body.standard, false);
      assert.equal(body.policy, "followed");
      assert.equal(body.server_key, instanceKey);
      assert.deepEqual(body.alerts, {
        mention: true,
        status: false,
        reblog: false,
        follow: true,
        follow_request: false,
        favourite: false,
        poll: false,
        update: false,
        // A plain user may not see the admin notifications.
        "admin.sign_up": false,
        "admin.report": false,
        quote: false,
        quoted_update: false,
        moderation_warning: false,
        // Held interactions (issue 34) follow their base alert unless named.
        "pending.favourite": false,
        "pending.reply": true,
        "pending.reblog": false,
      });
      const get = await callJson(instance, alice, "GET", PATH);
      assert.equal(get.status, 200);
      assert.deepEqual(get.body, body);
    });

    await t.step("a new POST replaces the token's subscription", async () => {
      const res = await callJson(
        instance,
        alice,
        "POST",
        PATH,
        valid({
          subscription: {
            endpoint: "https://push.example/sub/2",
            keys: { p256dh: keys.p256dh, auth: keys.auth },
            standard: true,
          },
        }),
      );
      assert.equal(res.status, 200);
      assert.notEqual(res.body.id, firstId);
      assert.equal(res.body.endpoint, "https://push.example/sub/2");
      assert.equal(res.body.standard, true);
      assert.equal(res.body.policy, "all");
      assert.ok(Object.values(res.body.alerts).every((v) => v === false));
      const rows = await db.select().from(webPushSubscriptions)
        .where(eq(webPushSubscriptions.userId, alice.userId));
      assert.equal(rows.length, 1);
    });

    await t.step("PUT replaces alerts and policy only", async () => {
      const res = await callJson(instance, alice, "PUT", PATH, {
        data: { alerts: { reblog: true, quote: true }, policy: "follower" },
        subscription: { endpoint: "https://evil.example/" },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.endpoint, "https://push.example/sub/2");
      assert.equal(res.body.standard, true);
      assert.equal(res.body.policy, "follower");
      assert.equal(res.body.alerts.reblog, true);
      assert.equal(res.body.alerts.quote, true);
      assert.equal(res.body.alerts.mention, false);
      const bad = await callJson(instance, alice, "PUT", PATH, { data: { policy: "friends" } });
      assert.equal(bad.status, 422);
      assert.match(bad.body.error, /^Validation failed: Policy/);
    });

    await t.step("form bodies with Rails keys, and a trailing slash, work alike", async () => {
      const form = new URLSearchParams({
        "subscription[endpoint]": "https://push.example/form",
        "subscription[keys][p256dh]": keys.p256dh,
        // Standard base64 with padding is accepted too.
        "subscription[keys][auth]": btoa(String.fromCharCode(...keys.authBytes)),
        "subscription[standard]": "true",
        "data[alerts][favourite]": "true",
        "data[policy]": "none",
      });
      const res = await instance.request(`${PATH}/`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${alice.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: form.toString(),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.endpoint, "https://push.example/form");
      assert.equal(body.standard, true);
      assert.equal(body.alerts.favourite, true);
      assert.equal(body.policy, "none");
      const query = await call(
        instance,
        alice,
        "PUT",
        `${PATH}?data[alerts][poll]=true&data[policy]=all`,
      );
      const updated = await query.json();
      assert.equal(query.status, 200);
      assert.equal(updated.alerts.poll, true);
      assert.equal(updated.alerts.favourite, false);
    });

    await t.step("bad endpoints and keys are refused with 422 and leave the old one", async () => {
      const before = (await callJson(instance, alice, "GET", PATH)).body;
      const offCurve = Uint8Array.from(
        atob(
          keys.p256dh.replaceAll("-", "+").replaceAll("_", "/") + "=",
        ),
        (c) => c.charCodeAt(0),
      );
      offCurve[64] ^= 1;
      const offCurveB64 = btoa(String.fromCharCode(...offCurve));
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ["no endpoint", { keys: { p256dh: keys.p256dh, auth: keys.auth } }, /Endpoint can't be/],
        ["not a URL", {
          endpoint: "not a url",
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        }, /Endpoint is invalid/],
        ["ftp", {
          endpoint: "ftp://push.example/x",
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        }, /Endpoint is invalid/],
        ["credentials", {
          endpoint: "https://user:pw@push.example/x",
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        }, /Endpoint is invalid/],
        ["oversized", {
          endpoint: "https://push.example/" + "a".repeat(5000),
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        }, /too long/],
        ["no keys", { endpoint: "https://push.example/x" }, /Key p256dh can't be blank/],
        ["p256dh not base64", {
          endpoint: "https://push.example/x",
          keys: { p256dh: "!!!!", auth: keys.auth },
        }, /Key p256dh is invalid/],
        ["p256dh compressed", {
          endpoint: "https://push.example/x",
          keys: {
            p256dh: btoa(String.fromCharCode(2, ...offCurve.subarray(1, 33))),
            auth: keys.auth,
          },
        }, /Key p256dh is invalid/],
        ["p256dh off the curve", {
          endpoint: "https://push.example/x",
          keys: { p256dh: offCurveB64, auth: keys.auth },
        }, /Key p256dh is invalid/],
        ["auth of 15 bytes", {
          endpoint: "https://push.example/x",
          keys: { p256dh: keys.p256dh, auth: btoa("x".repeat(15)) },
        }, /Key auth is invalid/],
        ["keys as a string", {
          endpoint: "https://push.example/x",
          keys: "p256dh",
        }, /Keys is invalid/],
      ];
      for (const [what, subscription, error] of cases) {
        const res = await callJson(instance, alice, "POST", PATH, { subscription });
        assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.error, /^Validation failed: /, what);
        assert.match(res.body.error, error, what);
      }
      const after = (await callJson(instance, alice, "GET", PATH)).body;
      assert.deepEqual(after, before);
    });

    await t.step("another token's subscription is not visible", async () => {
      const second = await createToken(instance, alice.userId, PUSH_SCOPES);
      assert.equal((await callJson(instance, second, "GET", PATH)).status, 404);
      const bob = await createUser(instance, "bob", { scopes: PUSH_SCOPES });
      assert.equal((await callJson(instance, bob, "GET", PATH)).status, 404);
      assert.equal((await callJson(instance, bob, "PUT", PATH, { data: {} })).status, 404);
      assert.equal((await callJson(instance, bob, "DELETE", PATH)).status, 200);
      assert.equal((await callJson(instance, alice, "GET", PATH)).status, 200);
    });

    await t.step("push scope required; no token 401", async () => {
      const noPush = await createUser(instance, "carol");
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        const body = method === "GET" || method === "DELETE" ? undefined : valid();
        const res = await callJson(instance, noPush, method, PATH, body);
        assert.equal(res.status, 403, method);
        assert.equal(res.body.error, "This action is outside the authorized scopes");
        assert.equal((await callJson(instance, null, method, PATH)).status, 401, method);
      }
      const onlyPush = await createUser(instance, "dave", { scopes: ["push"] });
      assert.equal((await callJson(instance, onlyPush, "POST", PATH, valid())).status, 200);
    });

    await t.step("staff keep the admin alerts", async () => {
      const mod = await createUser(instance, "mod", { scopes: PUSH_SCOPES });
      await db.update(users).set({ role: "moderator" }).where(eq(users.id, mod.userId));
      const res = await callJson(
        instance,
        mod,
        "POST",
        PATH,
        valid({ data: { alerts: { "admin.sign_up": true, "admin.report": true } } }),
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.alerts["admin.sign_up"], true);
      assert.equal(res.body.alerts["admin.report"], true);
    });

    await t.step("http endpoints only where private addresses are allowed", async () => {
      // The harness allows them (ALLOW_PRIVATE_ADDRESS=true); see delivery_test for the refusal.
      const res = await callJson(instance, alice, "POST", PATH, {
        subscription: {
          endpoint: "http://127.0.0.1:9/x",
          keys: { p256dh: keys.p256dh, auth: keys.auth },
        },
      });
      assert.equal(res.status, 200);
    });

    await t.step("revoking the token (POST /oauth/revoke) deletes its subscription", async () => {
      const { application, clientSecret } = await createApplication(db, {
        name: "revoker",
        redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
        scopes: PUSH_SCOPES,
      });
      const { token } = await createAccessToken(db, {
        applicationId: application.id,
        userId: alice.userId,
        scopes: PUSH_SCOPES,
      });
      assert.equal((await callJson(instance, token, "POST", PATH, valid())).status, 200);
      const before = await db.select().from(webPushSubscriptions);
      const revoked = await instance.request("/oauth/revoke", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_id: application.clientId,
          client_secret: clientSecret,
          token,
        }).toString(),
      });
      assert.equal(revoked.status, 200);
      await revoked.body?.cancel();
      const after = await db.select().from(webPushSubscriptions);
      assert.equal(after.length, before.length - 1);
      assert.ok(!after.some((row) => row.accessToken === token));
      assert.equal((await callJson(instance, token, "GET", PATH)).status, 401);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});

test("push subscription: https endpoints only without ALLOW_PRIVATE_ADDRESS", async () => {
  const instance = await startInstance({ env: { ALLOW_PRIVATE_ADDRESS: "false" } });
  try {
    const alice = await createUser(instance, "alice", { scopes: PUSH_SCOPES });
    const keys = uaKeys();
    const res = await callJson(instance, alice, "POST", PATH, {
      subscription: {
        endpoint: "http://push.example/x",
        keys: { p256dh: keys.p256dh, auth: keys.auth },
      },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error, "Validation failed: Endpoint is invalid");
  } finally {
    await instance.close({ destroy: true });
  }
});
