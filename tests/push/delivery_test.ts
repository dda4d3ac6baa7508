/**
 * Web Push delivery end to end: a notification made through the API reaches
 * a push service on loopback (the harness sets ALLOW_PRIVATE_ADDRESS), which
 * decrypts it with the subscription's private key, in both encodings, and
 * checks the payload, the headers and the VAPID JWT against the instance's
 * public key. Then: a disabled alert and policy `followed` send nothing; a
 * 410 deletes the subscription; a 503 is retried (after its Retry-After);
 * without ALLOW_PRIVATE_ADDRESS a loopback push service is refused.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { sendPush } from "../../jobs/web_push/send.ts";
import { MAX_ATTEMPTS } from "../../jobs/web_push/deliver.ts";
import { vapidKeys } from "../../actors/push/vapid.ts";
import { productUserAgent } from "../../version.ts";
import {
  arrival,
  decrypt,
  moreThan,
  pushesDrained,
  type PushService,
  startPushService,
  type UaKeys,
  uaKeys,
  verifyVapid,
} from "./helpers.ts";

const PATH = "/api/v1/push/subscription";
const PUSH_SCOPES = ["read", "write", "follow", "push"];

test("web push delivery", async (t) => {
  const instance = await startInstance();
  const service: PushService = await startPushService();
  try {
    const alice = await createUser(instance, "alice", { scopes: PUSH_SCOPES });
    const bob = await createUser(instance, "bob", {
      account: { displayName: "Bob Example" },
    });
    const carol = await createUser(instance, "carol");
    await ok(instance, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
    const serverKey = (await callJson(instance, null, "GET", "/api/v2/instance")).body
      .configuration.vapid.public_key as string;

    /** Subscribes `token` to `path` of the push service. */
    const subscribe = async (
      token: string,
      path: string,
      standard: boolean,
      data: Record<string, unknown>,
    ): Promise<UaKeys> => {
      const keys = uaKeys();
      const res = await callJson(instance, token, "POST", PATH, {
        subscription: {
          endpoint: `${service.origin}${path}`,
          keys: { p256dh: keys.p256dh, auth: keys.auth },
          standard,
        },
        data,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return keys;
    };

    /** The id of alice's newest notification. */
    const newestNotification = async (): Promise<any> =>
      (await ok(instance, alice, "GET", "/api/v1/notifications?limit=1"))[0];

    const mention = (from: TestUser, text: string) => postStatus(instance, from, `@alice ${text}`);

    const tokenStd = await createToken(instance, alice.userId, PUSH_SCOPES);
    const tokenLegacy = await createToken(instance, alice.userId, PUSH_SCOPES);
    const std = await subscribe(tokenStd, "/std", true, { alerts: { mention: true } });
    const legacy = await subscribe(tokenLegacy, "/legacy", false, {
      alerts: { mention: true, follow: true },
    });

    await t.step("a mention reaches both subscriptions, each encrypted its way", async () => {
      await mention(bob, "Hello <b>there</b> & welcome");
      const s = await arrival(service, "/std");
      const l = await arrival(service, "/legacy");
      const notification = await newestNotification();
      assert.equal(notification.type, "mention");
      const bobAccount = await ok(instance, alice, "GET", `/api/v1/accounts/${bob.id}`);

      assert.equal(s.headers.get("content-encoding"), "aes128gcm");
      assert.equal(l.headers.get("content-encoding"), "aesgcm");
      assert.match(l.headers.get("encryption") ?? "", /^salt=/);
      for (
        const [message, keys, token] of [[s, std, tokenStd], [l, legacy, tokenLegacy]] as const
      ) {
        assert.equal(message.headers.get("ttl"), "172800");
        assert.equal(message.headers.get("urgency"), "high");
        assert.equal(message.headers.get("content-type"), "application/octet-stream");
        assert.equal(message.headers.get("user-agent"), productUserAgent(instance.origin));
        const payload = decrypt(message, keys);
        assert.deepEqual(payload, {
          access_token: token,
          preferred_locale: "en",
          notification_id: notification.id,
          notification_type: "mention",
          icon: bobAccount.avatar_static,
          title: "You were mentioned by Bob Example",
          body: "@alice Hello there & welcome",
        });
        const claims = await verifyVapid(message, serverKey);
        assert.equal(claims.aud, service.origin);
        const now = Date.now() / 1000;
        assert.ok(claims.exp > now, "exp in the future");
        assert.ok(claims.exp <= now + 24 * 3600, "exp within 24 hours (RFC 8292)");
        assert.match(claims.sub, /^(mailto:|https:)/);
      }
      assert.match(s.headers.get("authorization") ?? "", /^vapid t=[^,]+, k=/);
      assert.match(l.headers.get("authorization") ?? "", /^WebPush /);
      assert.match(l.headers.get("crypto-key") ?? "", /dh=[^;]+;p256ecdsa=/);
    });

    await t.step("a follow carries the follower's bio; long texts are cut at 140", async () => {
      const dave = await createUser(instance, "dave", {
        account: { note: "<p>I like birds &amp; bees</p>" },
      });
      await ok(instance, dave, "POST", `/api/v1/accounts/${alice.id}/follow`);
      const follow = await arrival(service, "/legacy", 1);
      const payload = decrypt(follow, legacy);
      assert.equal(payload.notification_type, "follow");
      assert.equal(payload.title, "dave is now following you");
      assert.equal(payload.body, "I like birds & bees");
      assert.equal(follow.headers.get("urgency"), "normal");

      await mention(bob, "word ".repeat(60));
      const long = await arrival(service, "/legacy", 2);
      const body = decrypt(long, legacy).body as string;
      assert.equal([...body].length, 140);
      assert.ok(body.endsWith("..."));
      assert.ok(body.startsWith("@alice word word"));
    });

    await t.step("a disabled alert sends nothing", async () => {
      const res = await callJson(instance, tokenStd, "PUT", PATH, {
        data: { alerts: { favourite: true } },
      });
      assert.equal(res.status, 200);
      const before = { std: service.on("/std").length, legacy: service.on("/legacy").length };
      await mention(bob, "again");
      // The legacy subscription still wants mentions: it proves the push went out.
      await moreThan(service, "/legacy", before.legacy);
      await pushesDrained(instance);
      assert.equal(service.on("/std").length, before.std);
    });

    await t.step("policy followed withholds a push from a stranger", async () => {
      const res = await callJson(instance, tokenLegacy, "PUT", PATH, {
        data: { alerts: { mention: true }, policy: "followed" },
      });
      assert.equal(res.status, 200);
      const before = service.on("/legacy").length;
      await mention(carol, "from a stranger");
      const strangers = await newestNotification();
      assert.equal(strangers.account.id, carol.id);
      await pushesDrained(instance);
      assert.equal(service.on("/legacy").length, before);
      await mention(bob, "from a followee");
      const pushed = await arrival(service, "/legacy", before);
      assert.equal(decrypt(pushed, legacy).title, "You were mentioned by Bob Example");
      assert.equal(service.on("/legacy").length, before + 1);
    });

    await t.step("a notification held back by the notification policy is not pushed", async () => {
      const policy = await callJson(instance, alice, "PUT", "/api/v2/notifications/policy", {
        for_not_following: "filter",
      });
      assert.equal(policy.status, 200);
      await ok(instance, tokenLegacy, "PUT", PATH, { data: { alerts: { mention: true } } });
      const before = service.on("/legacy").length;
      await mention(carol, "filtered, I hope");
      await pushesDrained(instance);
      assert.equal(service.on("/legacy").length, before);
      // The policy let it through as a filtered notification: it exists, it is just not pushed.
      const filtered = await ok(
        instance,
        alice,
        "GET",
        `/api/v1/notifications?include_filtered=true&account_id=${carol.id}`,
      );
      assert.ok(filtered.some((n: any) => n.status?.content.includes("filtered, I hope")));
      await mention(bob, "not filtered");
      await arrival(service, "/legacy", before);
      await callJson(instance, alice, "PUT", "/api/v2/notifications/policy", {
        for_not_following: "accept",
      });
    });

    await t.step("a 410 from the push service deletes the subscription", async () => {
      const token = await createToken(instance, alice.userId, PUSH_SCOPES);
      service.answer("/gone", () => ({ status: 410 }));
      await subscribe(token, "/gone", true, { alerts: { mention: true } });
      await mention(bob, "are you there?");
      await eventually("the subscription to go", async () => {
        const res = await callJson(instance, token, "GET", PATH);
        return res.status === 404;
      });
      assert.equal(service.on("/gone").length, 1);
    });

    await t.step("a 503 is retried after its Retry-After", async () => {
      const token = await createToken(instance, alice.userId, PUSH_SCOPES);
      service.answer(
        "/flaky",
        (attempt) =>
          attempt === 1 ? { status: 503, headers: { "Retry-After": "1" } } : { status: 201 },
      );
      const keys = await subscribe(token, "/flaky", false, { alerts: { mention: true } });
      await mention(bob, "second time lucky");
      const first = await arrival(service, "/flaky", 0);
      const second = await arrival(service, "/flaky", 1);
      assert.equal(decrypt(second, keys).notification_id, decrypt(first, keys).notification_id);
      await pushesDrained(instance);
      assert.equal(service.on("/flaky").length, 2);
      assert.equal((await callJson(instance, token, "GET", PATH)).status, 200);
    });

    await t.step("retries are bounded; another 4xx is dropped without a retry", async () => {
      const down = await createToken(instance, alice.userId, PUSH_SCOPES);
      const bad = await createToken(instance, alice.userId, PUSH_SCOPES);
      service.answer("/down", () => ({ status: 503, headers: { "Retry-After": "0" } }));
      service.answer("/bad", () => ({ status: 400 }));
      await subscribe(down, "/down", true, { alerts: { mention: true } });
      await subscribe(bad, "/bad", true, { alerts: { mention: true } });
      await mention(bob, "is anyone up?");
      await arrival(service, "/down", 4);
      await pushesDrained(instance);
      assert.equal(service.on("/down").length, MAX_ATTEMPTS);
      assert.equal(service.on("/bad").length, 1);
      // Neither answer says the subscription is gone.
      assert.equal((await callJson(instance, down, "GET", PATH)).status, 200);
      assert.equal((await callJson(instance, bad, "GET", PATH)).status, 200);
      await ok(instance, down, "DELETE", PATH);
      await ok(instance, bad, "DELETE", PATH);
    });

    await t.step("without ALLOW_PRIVATE_ADDRESS a loopback push service is refused", async () => {
      const keys = uaKeys();
      const before = service.received.length;
      const outcome = await sendPush(
        {
          endpoint: `${service.origin}/private`,
          p256dh: keys.p256dh,
          auth: keys.auth,
          standard: true,
        },
        "{}",
        {
          vapid: await vapidKeys(instance.rookery.ctx),
          subject: "mailto:admin@example.com",
          urgency: "normal",
          allowPrivateAddress: false,
          timeoutMs: 5_000,
          origin: instance.origin,
        },
      );
      assert.equal(outcome.kind, "dropped");
      assert.equal(service.received.length, before);
    });
  } finally {
    await service.close();
    await instance.close({ destroy: true });
  }
});
