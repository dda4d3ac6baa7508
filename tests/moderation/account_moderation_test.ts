/**
 * What moderation does, over HTTP on one instance: silence (public,
 * hashtag timelines, search, notifications), sensitive, disable and enable,
 * suspension of a local account (statuses, profile, tokens, media files,
 * ActivityPub documents; restored by unsuspend), DELETE of a suspended
 * account's data, suspension of a remote account, the grace-period purge
 * and the admin command line, with their audit rows.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, follows, statuses, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { purgeExpiredSuspensions } from "../../actors/moderation/suspension.ts";
import { mediaStore } from "../../actors/media/store.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { form, image, upload } from "../media/helpers.ts";
import { staff, startAdminFixture } from "./admin_fixture.ts";
import { SseClient } from "../streaming/helpers.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";

test("account moderation as readers see it", async (t) => {
  const f = await startAdminFixture();
  const { instance, db, get, post, accountRow, auditOf } = f;
  const { admin, mod, alice, bob, dave, zed } = f;
  const ctx = instance.rookery.ctx;
  try {
    await t.step("silence: out of public timelines and strangers' notifications", async () => {
      const limited = await post(mod, `/api/v1/admin/accounts/${dave.id}/action`, {
        type: "silence",
        send_email_notification: false,
      });
      assert.equal(limited.status, 200);
      // alice follows dave (silenced above); bob does not.
      assert.equal((await post(alice, `/api/v1/accounts/${dave.id}/follow`)).status, 200);
      const status = await postStatus(instance, dave, "limited post #limitedtag @bob @alice");
      const inPublic = async (who: TestUser | null, path = "/api/v1/timelines/public") => {
        const res = await get(who, path);
        assert.equal(res.status, 200);
        return res.body.some((s: { id: string }) => s.id === status.id);
      };
      assert.equal(await inPublic(null), false);
      assert.equal(await inPublic(bob), false);
      assert.equal(await inPublic(bob, "/api/v1/timelines/tag/limitedtag"), false);
      assert.equal(await inPublic(alice), true, "followers still see it");
      assert.equal(await inPublic(dave), true, "and the author");
      assert.equal((await get(bob, `/api/v1/statuses/${status.id}`)).status, 200, "not hidden");
      // Mentions: the follower is notified, the stranger's is held back.
      await eventually("alice's mention", async () => {
        const res = await get(alice, "/api/v1/notifications?types[]=mention");
        return res.body.some((n: { status?: { id: string } }) => n.status?.id === status.id);
      });
      const bobs = await get(bob, "/api/v1/notifications?types[]=mention");
      assert.equal(
        bobs.body.some((n: { status?: { id: string } }) => n.status?.id === status.id),
        false,
      );
      const requests = await get(bob, "/api/v1/notifications/requests");
      assert.ok(requests.body.some((r: { account: { id: string } }) => r.account.id === dave.id));
      // Account search: bob does not find dave by a prefix, but by the exact handle.
      const prefix = await get(bob, "/api/v2/search?type=accounts&q=dav");
      assert.equal(prefix.body.accounts.some((a: { id: string }) => a.id === dave.id), false);

      assert.equal((await post(mod, `/api/v1/admin/accounts/${dave.id}/unsilence`)).status, 200);
      assert.equal(await inPublic(bob), true);
      assert.equal((await auditOf(dave.id, "unsilence")).length, 1);
    });

    await t.step("sensitive: statuses shown sensitive to others", async () => {
      const status = await postStatus(instance, bob, "an ordinary post");
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).body.sensitive, false);
      const res = await post(mod, `/api/v1/admin/accounts/${bob.id}/action`, {
        type: "sensitive",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).body.sensitive, true);
      assert.equal((await get(null, `/api/v1/statuses/${status.id}`)).body.sensitive, true);
      assert.equal((await get(bob, `/api/v1/statuses/${status.id}`)).body.sensitive, false);
      assert.equal((await get(mod, `/api/v1/admin/accounts/${bob.id}`)).body.sensitized, true);
      assert.equal((await post(mod, `/api/v1/admin/accounts/${bob.id}/unsensitive`)).status, 200);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).body.sensitive, false);
      assert.equal((await auditOf(bob.id, "sensitive")).length, 1);
      assert.equal((await auditOf(bob.id, "unsensitive")).length, 1);
    });

    await t.step("disable and enable", async () => {
      assert.equal((await get(alice, "/api/v1/accounts/verify_credentials")).status, 200);
      const res = await post(mod, `/api/v1/admin/accounts/${alice.id}/action`, {
        type: "disable",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      assert.equal((await get(mod, `/api/v1/admin/accounts/${alice.id}`)).body.disabled, true);
      assert.equal((await get(alice, "/api/v1/accounts/verify_credentials")).status, 403);
      const enabled = await post(mod, `/api/v1/admin/accounts/${alice.id}/enable`);
      assert.equal(enabled.status, 200);
      assert.equal(enabled.body.disabled, false);
      assert.equal((await get(alice, "/api/v1/accounts/verify_credentials")).status, 200);
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/enable`)).status, 403);
      assert.equal((await auditOf(alice.userId, "disable")).length, 1);
      assert.equal((await auditOf(alice.userId, "enable")).length, 1);
    });

    await t.step("suspend a local account: hidden at once, restored by unsuspend", async () => {
      const frank = await createUser(instance, "frank");
      const uploaded = await upload(
        instance,
        frank.token,
        form({ bytes: await image("png", 40, 30), type: "image/png" }),
      );
      assert.equal(uploaded.status, 200);
      const media = await uploaded.json();
      const file = () =>
        instance.request(media.url).then(async (r) => {
          await r.body?.cancel();
          return r.status;
        });
      assert.equal(await file(), 200);
      const status = await postStatus(instance, frank, {
        status: "before the fall",
        media_ids: [media.id],
      });
      assert.equal((await post(alice, `/api/v1/accounts/${frank.id}/follow`)).status, 200);
      const res = await post(mod, `/api/v1/admin/accounts/${frank.id}/action`, {
        type: "suspend",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      const entity = (await get(mod, `/api/v1/admin/accounts/${frank.id}`)).body;
      assert.equal(entity.suspended, true);
      assert.equal(entity.account.suspended, true);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).status, 404);
      assert.equal((await get(null, `/api/v1/statuses/${status.id}`)).status, 404);
      const profile = await get(alice, `/api/v1/accounts/${frank.id}`);
      assert.equal(profile.body.suspended, true);
      // Mastodon's functional? check: the token is kept, its login refused.
      const refused = await get(frank, "/api/v1/accounts/verify_credentials");
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, "Your login is currently disabled");
      // ActivityPub: the actor says it is suspended and shows nothing else.
      const ap = { headers: { Accept: "application/activity+json" } };
      const actor = await instance.request("/users/frank", ap);
      assert.equal(actor.status, 200);
      const doc = await actor.json();
      assert.equal(doc.suspended, true);
      assert.equal(doc.name ?? null, null);
      assert.equal((await instance.request("/users/frank/outbox", ap)).status, 404);
      await (await instance.request("/users/frank/followers", ap)).body?.cancel();
      const object = await instance.request(new URL(status.uri).pathname, ap);
      assert.ok([404, 410].includes(object.status), `status object: ${object.status}`);
      await object.body?.cancel();
      assert.equal((await auditOf(frank.id, "suspend")).length, 1);
      assert.equal(await file(), 404, "its media files are not served");
      // Follows are kept for unsuspend.
      const kept = await db.select().from(follows).where(eq(follows.targetAccountId, frank.id));
      assert.equal(kept.length, 1);

      const back = await post(mod, `/api/v1/admin/accounts/${frank.id}/unsuspend`);
      assert.equal(back.status, 200);
      assert.equal(back.body.suspended, false);
      // The apps that held a token work again (masto.js's suite counts on it).
      assert.equal((await get(frank, "/api/v1/accounts/verify_credentials")).status, 200);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).status, 200);
      assert.equal((await instance.request("/users/frank/outbox", ap)).status, 200);
      assert.equal((await auditOf(frank.id, "unsuspend")).length, 1);
      assert.equal(await file(), 200);
      // Not suspended: nothing to lift.
      assert.equal((await post(mod, `/api/v1/admin/accounts/${frank.id}/unsuspend`)).status, 403);
    });

    await t.step("DELETE purges only a suspended account, and needs delete_user_data", async () => {
      const gus = await createUser(instance, "gus");
      const status = await postStatus(instance, gus, "soon gone");
      const del = (who: TestUser) =>
        callJson(instance, who, "DELETE", `/api/v1/admin/accounts/${gus.id}`);
      assert.equal((await del(admin)).status, 403, "not suspended");
      await post(mod, `/api/v1/admin/accounts/${gus.id}/action`, {
        type: "suspend",
        send_email_notification: false,
      });
      assert.equal((await del(mod)).status, 403, "moderators may not delete data");
      const gone = await del(admin);
      assert.equal(gone.status, 200);
      assert.equal(gone.body.suspended, true);
      const row = await accountRow(gus.id);
      assert.ok(row.deletedAt);
      const [s] = await db.select().from(statuses).where(eq(statuses.id, status.id));
      assert.ok(s.deletedAt);
      assert.equal((await db.select().from(users).where(eq(users.id, gus.userId))).length, 0);
      assert.equal((await auditOf(gus.id, "destroy")).length, 1);
      const actor = await instance.request("/users/gus", {
        headers: { Accept: "application/activity+json" },
      });
      assert.equal(actor.status, 410);
      await actor.body?.cancel();
      assert.equal((await del(admin)).status, 404, "already purged");
      assert.equal((await post(admin, `/api/v1/admin/accounts/${gus.id}/unsuspend`)).status, 404);
    });

    await t.step("suspend a remote account: its follows of ours end", async () => {
      await db.insert(follows).values({ id: newId(), accountId: zed, targetAccountId: bob.id });
      await db.update(accounts).set({ followersCount: 1 }).where(eq(accounts.id, bob.id));
      const res = await post(mod, `/api/v1/admin/accounts/${zed}/action`, { type: "suspend" });
      assert.equal(res.status, 200);
      assert.equal((await db.select().from(follows).where(eq(follows.accountId, zed))).length, 0);
      assert.equal((await accountRow(bob.id)).followersCount, 0);
      assert.equal((await accountRow(zed)).suspensionOrigin, "local");
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/unsuspend`)).status, 200);
      // What its own server suspended, only its own server lifts.
      await db.update(accounts).set({ suspendedAt: new Date(), suspensionOrigin: "remote" })
        .where(eq(accounts.id, zed));
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/unsuspend`)).status, 403);
      assert.equal(
        (await callJson(instance, admin, "DELETE", `/api/v1/admin/accounts/${zed}`)).status,
        403,
      );
      await db.update(accounts).set({ suspendedAt: null, suspensionOrigin: null })
        .where(eq(accounts.id, zed));
    });

    await t.step("a remote account's data deleted: the same tombstone as a local one", async () => {
      const yan = await insertRemoteAccount(instance, "yan", "remote.example", {
        displayName: "Yan",
        note: "<p>a bio</p>",
        fields: [{ name: "site", value: "<p>x</p>", verified_at: null }],
        locked: true,
        statusesCount: 3,
      });
      const suspended = await post(mod, `/api/v1/admin/accounts/${yan}/action`, {
        type: "suspend",
      });
      assert.equal(suspended.status, 200);
      const gone = await callJson(instance, admin, "DELETE", `/api/v1/admin/accounts/${yan}`);
      assert.equal(gone.status, 200);
      const row = await accountRow(yan);
      assert.ok(row.deletedAt);
      // Mastodon's purge_profile!: the profile is emptied for remote accounts too.
      assert.deepEqual(
        [row.displayName, row.note, row.fields, row.locked, row.statusesCount],
        ["", "", [], false, 0],
      );
      assert.equal(gone.body.account.display_name, "");
    });

    await t.step("the grace period: the worker's purge", async () => {
      const hal = await createUser(instance, "hal");
      const ivy = await createUser(instance, "ivy");
      for (const who of [hal, ivy]) {
        await post(admin, `/api/v1/admin/accounts/${who.id}/action`, {
          type: "suspend",
          send_email_notification: false,
        });
      }
      await db.update(accounts).set({ suspendedAt: new Date(Date.now() - 31 * 86_400_000) })
        .where(eq(accounts.id, hal.id));
      // Suspending again does not restart the grace period.
      assert.equal(
        (await post(admin, `/api/v1/admin/accounts/${hal.id}/action`, {
          type: "suspend",
          send_email_notification: false,
        })).status,
        200,
      );
      const media = mediaStore(instance.rookery.ctx.config);
      assert.equal(await purgeExpiredSuspensions(db, 30, media), 1);
      assert.ok((await accountRow(hal.id)).deletedAt, "past the grace period: purged");
      assert.equal((await accountRow(ivy.id)).deletedAt, null, "within it: kept");
      assert.equal(await purgeExpiredSuspensions(db, 30, media), 0);
    });

    await t.step("admin command line: suspend, unsuspend, silence, unsilence", async () => {
      const env = { db, config: ctx.config, app: ctx };
      const silenced = await runAdminCommand(env, ["account", "silence", "alice"]);
      assert.equal(silenced.exitCode, 0, silenced.stderr);
      assert.ok((await accountRow(alice.id)).silencedAt);
      const [log] = await auditOf(alice.id, "silence");
      assert.equal(log.accountId, null, "the operator has no account");
      assert.equal((await runAdminCommand(env, ["account", "unsilence", "@Alice"])).exitCode, 0);
      assert.equal((await accountRow(alice.id)).silencedAt, null);
      const remote = await runAdminCommand(env, ["account", "suspend", "zed@REMOTE.example"]);
      assert.equal(remote.exitCode, 0, remote.stderr);
      assert.ok((await accountRow(zed)).suspendedAt);
      assert.equal(
        (await runAdminCommand(env, ["account", "unsuspend", "zed@remote.example"]))
          .exitCode,
        0,
      );
      assert.equal((await accountRow(zed)).suspendedAt, null);
      const again = await runAdminCommand(env, ["account", "unsuspend", "zed@remote.example"]);
      assert.equal(again.exitCode, 1);
      assert.match(again.stderr, /not suspended/);
      const missing = await runAdminCommand(env, ["account", "suspend", "nobody\u0007"]);
      assert.equal(missing.exitCode, 1);
      assert.equal(missing.stderr.includes("\u0007"), false);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});

test("limited accounts on public streams: only their followers", async () => {
  const instance = await startInstance({ listen: true });
  const open: SseClient[] = [];
  try {
    const mod = await staff(instance, "mona", "moderator");
    const dave = await createUser(instance, "dave");
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    assert.equal(
      (await callJson(instance, alice, "POST", `/api/v1/accounts/${dave.id}/follow`)).status,
      200,
    );
    const limit = await callJson(
      instance,
      mod,
      "POST",
      `/api/v1/admin/accounts/${dave.id}/action`,
      {
        type: "silence",
        send_email_notification: false,
      },
    );
    assert.equal(limit.status, 200);
    const connect = async (token?: string) => {
      const client = await SseClient.open(instance, "/api/v1/streaming/public", token);
      open.push(client);
      return client;
    };
    const anonymous = await connect();
    const stranger = await connect(bob.token);
    const follower = await connect(alice.token);
    const limited = await postStatus(instance, dave, "limited, on the public stream?");
    assert.equal(JSON.parse((await follower.next("update")).data).id, limited.id);
    // A later post everyone gets: once it is there, the limited one would have been too.
    const normal = await postStatus(instance, alice, "an ordinary post");
    for (const sse of [anonymous, stranger]) {
      assert.equal(JSON.parse((await sse.next("update")).data).id, normal.id);
      assert.equal(
        sse.inbox.items.some((e) => e.data.includes(limited.id)),
        false,
        "the limited post is not streamed to strangers",
      );
    }
  } finally {
    for (const client of open) await client.close();
    await instance.close({ destroy: true });
  }
});
