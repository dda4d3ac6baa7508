/**
 * Instance domain blocks enforced, on one instance: silence (limited authors
 * out of public and hashtag timelines, streams and search for
 * non-followers; account-level silence alike), suspend through the admin
 * command line (accounts hidden, follows ended, restored by unblocking),
 * reject_media clearing what was kept, and what hand-written peers
 * (tests/fixtures/fake_peer.ts) meet at the inbox: refused before any fetch
 * when suspended, media kept as links with reject_media, Flags ignored with
 * reject_reports. And, on PostgreSQL, a block made in one process enforced
 * by another at once. The admin API itself: domain_blocks_test.ts.
 */
import assert from "node:assert/strict";
import { count, eq, sql } from "drizzle-orm";
import {
  accounts,
  follows,
  mediaAttachments,
  reports,
  statuses,
  users,
} from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { findOrCreateTags } from "../../db/queries/tags.ts";
import { statusTags } from "../../db/schema/mod.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { writeFollow } from "../../actors/relationships/follow_rows.ts";
import { purgeExpiredSuspensions } from "../../actors/moderation/suspension.ts";
import { mediaStore } from "../../actors/media/store.ts";
import { POSTGRES_ONLY, startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { SseClient } from "../streaming/helpers.ts";
import { eventually } from "../fixtures/wait.ts";

const ADMIN_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"];
const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

async function staff(instance: TestInstance, name: string, role: string): Promise<TestUser> {
  const user = await createUser(instance, name, { scopes: ADMIN_SCOPES });
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
  return user;
}

/** A public remote status row (with tags), as the inbox would have stored it. */
async function remotePost(
  instance: TestInstance,
  accountId: string,
  text: string,
  tags: string[] = [],
): Promise<string> {
  const { db } = instance.rookery.ctx.database;
  const id = newId();
  await db.insert(statuses).values({
    id,
    uri: `https://remote.invalid/statuses/${id}`,
    accountId,
    local: false,
    visibility: "public",
    content: `<p>${text}</p>`,
    text,
  });
  if (tags.length) {
    const found = await findOrCreateTags(db, tags);
    await db.insert(statusTags).values(
      [...found.values()].map((t) => ({ statusId: id, tagId: t.id })),
    );
  }
  return id;
}

async function ids(instance: TestInstance, who: TestUser | null, path: string): Promise<string[]> {
  const res = await callJson(instance, who, "GET", path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { id: string }[]).map((s) => s.id);
}

test("instance domain blocks enforced: silence, suspend, media, reports, streams", async (t) => {
  // Listening: the streaming step reads server-sent events over HTTP.
  const instance = await startInstance({ listen: true });
  const { db } = instance.rookery.ctx.database;
  try {
    const admin = await staff(instance, "boss", "admin");
    const user = await staff(instance, "plain", "user");

    await t.step(
      "silence: limited authors out of public, hashtag timelines and search for non-followers",
      async () => {
        const loud = await insertRemoteAccount(instance, "loud", "silenced.example", {
          indexable: true,
        });
        const sub = await insertRemoteAccount(instance, "sub", "a.silenced.example", {
          indexable: true,
        });
        const fine = await insertRemoteAccount(instance, "fine", "notsilenced.example", {
          indexable: true,
        });
        const follower = await createUser(instance, "follower");
        await writeFollow(db, follower.id, loud, {}, null);
        const loudPost = await remotePost(instance, loud, "whisperword from loud", ["quiet"]);
        const subPost = await remotePost(instance, sub, "whisperword from sub", ["quiet"]);
        const finePost = await remotePost(instance, fine, "whisperword from fine", ["quiet"]);
        const publicIds = (who: TestUser | null) =>
          ids(instance, who, "/api/v1/timelines/public?limit=40");
        const tagIds = (who: TestUser | null) => ids(instance, who, "/api/v1/timelines/tag/quiet");
        const searchIds = async (who: TestUser) => {
          const res = await callJson(
            instance,
            who,
            "GET",
            "/api/v2/search?q=whisperword&type=statuses",
          );
          assert.equal(res.status, 200);
          return (res.body.statuses as { id: string }[]).map((s) => s.id).sort();
        };
        // Before the block, everyone sees all three (so the checks below can fail).
        for (const who of [null, user, follower]) {
          const seen = await publicIds(who);
          assert.ok(
            [loudPost, subPost, finePost].every((id) => seen.includes(id)),
            "visible before",
          );
        }
        assert.deepEqual(await searchIds(user), [loudPost, subPost, finePost].sort());
        const block = await callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", {
          domain: "silenced.example",
          severity: "silence",
        });
        assert.equal(block.status, 200);
        for (const who of [null, user]) {
          for (const seen of [await publicIds(who), await tagIds(who)]) {
            assert.ok(seen.includes(finePost));
            assert.ok(
              !seen.includes(loudPost) && !seen.includes(subPost),
              "limited for non-followers",
            );
          }
        }
        assert.deepEqual(await searchIds(user), [finePost]);
        const peers = await callJson(instance, null, "GET", "/api/v1/instance/peers");
        assert.ok(peers.body.includes("notsilenced.example"));
        assert.ok(
          !peers.body.includes("silenced.example") && !peers.body.includes("a.silenced.example"),
          "silenced servers are not advertised",
        );
        // A follower still sees the account they follow (not its subdomain neighbour).
        for (const seen of [await publicIds(follower), await tagIds(follower)]) {
          assert.ok(seen.includes(loudPost) && !seen.includes(subPost));
        }
        assert.deepEqual(await searchIds(follower), [loudPost, finePost].sort());
        // The statuses themselves stay reachable, as Mastodon's do.
        assert.equal(
          (await callJson(instance, user, "GET", `/api/v1/statuses/${loudPost}`)).status,
          200,
        );
        // A moderator's silence of one account (migration 0021) is the same limit.
        const hushed = await insertRemoteAccount(instance, "hushed", "notsilenced.example", {
          silencedAt: new Date(),
        });
        const hushedPost = await remotePost(instance, hushed, "whisperword hushed", ["quiet"]);
        assert.ok(!(await publicIds(user)).includes(hushedPost));
        assert.ok(!(await tagIds(null)).includes(hushedPost));
        // Noop lifts the limit at once.
        await callJson(instance, admin, "PUT", `/api/v1/admin/domain_blocks/${block.body.id}`, {
          severity: "noop",
        });
        assert.ok((await publicIds(null)).includes(subPost));
        await callJson(instance, admin, "DELETE", `/api/v1/admin/domain_blocks/${block.body.id}`);
      },
    );

    await t.step(
      "suspend (admin command line): accounts hidden, follows ended; unblock restores",
      async () => {
        const env = { db, config: instance.rookery.ctx.config };
        const alice = await createUser(instance, "alice");
        const bad = await insertRemoteAccount(instance, "bad", "evil.example");
        const deep = await insertRemoteAccount(instance, "deep", "x.evil.example");
        const earlier = new Date("2020-01-01T00:00:00Z");
        const already = await insertRemoteAccount(instance, "already", "evil.example", {
          suspendedAt: earlier,
        });
        await writeFollow(db, alice.id, bad, {}, null);
        await writeFollow(db, bad, alice.id, {}, null);
        await writeFollow(db, deep, alice.id, {}, null);
        const badPost = await remotePost(instance, bad, "evil words");
        assert.equal(
          (await callJson(instance, alice, "GET", `/api/v1/statuses/${badPost}`)).status,
          200,
        );

        const blocked = await runAdminCommand(env, [
          "domain",
          "block",
          "evil.example",
          "--public-comment",
          "Abuse",
        ]);
        assert.equal(blocked.exitCode, 0, blocked.stderr);
        assert.equal(blocked.stdout.trim(), "Blocked evil.example (suspend).");
        const followRows = await db.select().from(follows).where(
          sql`${follows.accountId} = ${alice.id}::bigint OR ${follows.targetAccountId} = ${alice.id}::bigint`,
        );
        assert.deepEqual(followRows, [], "follows both ways, subdomains included, are gone");
        const [counts] = await db.select().from(accounts).where(eq(accounts.id, alice.id));
        assert.deepEqual([counts.followersCount, counts.followingCount], [0, 0]);
        assert.equal(
          (await callJson(instance, alice, "GET", `/api/v1/statuses/${badPost}`)).status,
          404,
        );
        assert.ok(
          !(await ids(instance, null, "/api/v1/timelines/public?limit=40")).includes(badPost),
        );

        const list = await runAdminCommand(env, ["domain", "list"]);
        assert.match(list.stdout, /evil\.example\s+suspend/);
        const json = JSON.parse((await runAdminCommand(env, ["domain", "list", "--json"])).stdout);
        assert.equal(
          json.find((b: { domain: string }) => b.domain === "evil.example").public_comment,
          "Abuse",
        );
        const twice = await runAdminCommand(env, ["domain", "block", "evil.example"]);
        assert.equal(twice.exitCode, 1);
        assert.match(twice.stderr, /already covered/);
        const badSeverity = await runAdminCommand(env, [
          "domain",
          "block",
          "x.example",
          "--severity",
          "nuke",
        ]);
        assert.equal(badSeverity.exitCode, 2);
        const [row] = await db.select({ id: sql<string>`id::text` }).from(sql`domain_blocks`)
          .where(sql`domain = 'evil.example'`);
        const log = await listAdminActions(db, { targetType: "DomainBlock", targetId: row.id });
        assert.deepEqual(log.map((r) => [r.action, r.accountId]), [["create", null]]);

        // The purge of suspensions past the grace period (here: all of them)
        // leaves what a domain block suspended.
        await purgeExpiredSuspensions(db, 0, mediaStore(env.config));
        const unblocked = await runAdminCommand(env, ["domain", "unblock", "EVIL.example"]);
        assert.equal(unblocked.exitCode, 0, unblocked.stderr);
        assert.equal(
          (await callJson(instance, alice, "GET", `/api/v1/statuses/${badPost}`)).status,
          200,
        );
        const states = await db.select({ id: accounts.id, suspendedAt: accounts.suspendedAt }).from(
          accounts,
        )
          .where(sql`${accounts.id} IN (${bad}::bigint, ${deep}::bigint, ${already}::bigint)`);
        const byId = new Map(states.map((r) => [r.id, r.suspendedAt]));
        assert.equal(byId.get(bad), null);
        assert.equal(byId.get(deep), null);
        assert.equal(
          byId.get(already)?.toISOString(),
          earlier.toISOString(),
          "an earlier suspension stays",
        );
        const [{ n }] = await db.select({ n: count() }).from(follows).where(
          eq(follows.targetAccountId, alice.id),
        );
        assert.equal(n, 0, "follows are not restored");
        const log2 = await listAdminActions(db, { targetType: "DomainBlock", targetId: row.id });
        assert.deepEqual(log2.map((r) => r.action), ["destroy", "create"]);
        assert.equal(
          (await runAdminCommand(env, ["domain", "unblock", "evil.example"])).exitCode,
          1,
        );
      },
    );

    await t.step("peers: suspended refused unread, reject_media, reject_reports", async () => {
      const peer = await startFakePeer();
      const control = await startFakePeer();
      const send = (request: Request) => instance.request(request.url, request);
      const inbox = `${instance.origin}/inbox`;
      const target = await createUser(instance, "target");
      const targetUri = `${instance.origin}/users/target`;
      try {
        const actor = peer.publishActor("spammer", {
          icon: { type: "Image", mediaType: "image/png", url: `${peer.origin}/avatar.png` },
        });
        const reporter = control.publishActor("reporter");
        let serial = 0;
        const create = (by: string, extra: Record<string, unknown> = {}) => {
          const id = `${by}/notes/${++serial}`;
          return {
            "@context": AS,
            id: `${id}/activity`,
            type: "Create",
            actor: by,
            to: [PUBLIC],
            object: {
              id,
              type: "Note",
              attributedTo: by,
              to: [PUBLIC],
              content: `note ${serial}`,
              published: new Date().toISOString(),
              ...extra,
            },
          };
        };
        const peerDomain = new URL(peer.origin).host;
        const block = await callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", {
          domain: peerDomain,
          severity: "suspend",
        });
        assert.equal(block.status, 200, JSON.stringify(block.body));
        const refused = create(actor);
        const res = await peer.deliver(inbox, refused, { keyId: `${actor}#main-key`, send });
        assert.equal(await statusOf(res), 403);
        assert.equal(peer.hits("/users/spammer"), 0, "no fetch for a refused delivery");
        assert.equal(await storedStatus(instance, refused.object.id), undefined);

        await callJson(instance, admin, "PUT", `/api/v1/admin/domain_blocks/${block.body.id}`, {
          severity: "noop",
          reject_media: true,
          reject_reports: true,
        });
        const withMedia = create(actor, {
          attachment: [{
            type: "Document",
            mediaType: "image/png",
            url: `${peer.origin}/photo.png`,
            name: "a photo",
            blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
            width: 100,
            height: 100,
          }],
        });
        const accepted = await peer.deliver(inbox, withMedia, { keyId: `${actor}#main-key`, send });
        assert.equal(await statusOf(accepted), 202);
        const stored = await eventually(
          "the note with media",
          () => storedStatus(instance, withMedia.object.id),
        );
        const media = await db.select().from(mediaAttachments).where(
          eq(mediaAttachments.statusId, stored.id),
        );
        assert.equal(media.length, 1);
        assert.equal(media[0].type, "unknown");
        assert.equal(media[0].blurhash, null);
        assert.equal(media[0].remoteUrl, `${peer.origin}/photo.png`);
        const shown = await callJson(instance, target, "GET", `/api/v1/statuses/${stored.id}`);
        assert.equal(
          shown.body.media_attachments[0].preview_url,
          null,
          "no preview fetched by clients",
        );
        const [spammer] = await db.select().from(accounts).where(eq(accounts.uri, actor));
        assert.equal(spammer.avatarUrl, null, "no avatar from a reject_media domain");

        const flag = (by: string) => ({
          "@context": AS,
          id: `${by}/flags/${++serial}`,
          type: "Flag",
          actor: by,
          object: [targetUri],
          content: "report",
        });
        const rejectedFlag = await peer.deliver(inbox, flag(actor), {
          keyId: `${actor}#main-key`,
          send,
        });
        assert.equal(await statusOf(rejectedFlag), 202);
        const counted = await control.deliver(inbox, flag(reporter), {
          keyId: `${reporter}#main-key`,
          send,
        });
        assert.equal(await statusOf(counted), 202);
        const reportsOf = async () =>
          await db.select().from(reports).where(eq(reports.targetAccountId, target.id));
        await eventually("the control report", async () => (await reportsOf()).length > 0);
        // The peer's Flag went in first (one ordered queue per sender is not
        // promised): settle with a marker from the peer before counting.
        const marker = create(actor);
        await peer.deliver(inbox, marker, { keyId: `${actor}#main-key`, send });
        await eventually("the marker", () => storedStatus(instance, marker.object.id));
        const found = await reportsOf();
        assert.equal(found.length, 1, "only the control peer's report");
        const [sender] = await db.select().from(accounts).where(
          eq(accounts.id, found[0].accountId!),
        );
        assert.equal(sender.uri, reporter);
        await callJson(instance, admin, "DELETE", `/api/v1/admin/domain_blocks/${block.body.id}`);
      } finally {
        await peer.close();
        await control.close();
      }
    });

    await t.step("reject_media on a block clears what was kept of the domain's media", async () => {
      const pics = await insertRemoteAccount(instance, "pics", "pics.example", {
        avatarUrl: "https://pics.example/avatar.png",
        headerUrl: "https://pics.example/header.png",
      });
      const post = await remotePost(instance, pics, "a photo");
      await db.insert(mediaAttachments).values({
        id: newId(),
        accountId: pics,
        statusId: post,
        type: "image",
        remoteUrl: "https://pics.example/photo.png",
        blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
        meta: { original: { width: 10, height: 10 } },
      });
      const block = await callJson(instance, admin, "POST", "/api/v1/admin/domain_blocks", {
        domain: "pics.example",
        severity: "noop",
      });
      const shown = async () =>
        (await callJson(instance, user, "GET", `/api/v1/statuses/${post}`)).body;
      assert.equal((await shown()).media_attachments[0].type, "image", "noop keeps media");
      await callJson(instance, admin, "PUT", `/api/v1/admin/domain_blocks/${block.body.id}`, {
        reject_media: true,
      });
      const media = (await shown()).media_attachments[0];
      assert.deepEqual([media.type, media.preview_url, media.blurhash], ["unknown", null, null]);
      assert.equal(media.remote_url, "https://pics.example/photo.png");
      const [row] = await db.select().from(accounts).where(eq(accounts.id, pics));
      assert.deepEqual([row.avatarUrl, row.headerUrl], [null, null]);
      await callJson(instance, admin, "DELETE", `/api/v1/admin/domain_blocks/${block.body.id}`);
    });

    await t.step("public streams: a limited author reaches followers only", async () => {
      const hushed = await createUser(instance, "hushedlocal");
      const fan = await createUser(instance, "fan");
      const passerby = await createUser(instance, "passerby");
      await db.update(accounts).set({ silencedAt: new Date() }).where(eq(accounts.id, hushed.id));
      assert.equal(
        (await callJson(instance, fan, "POST", `/api/v1/accounts/${hushed.id}/follow`)).status,
        200,
      );
      const streams = {
        fan: await SseClient.open(instance, "/api/v1/streaming/public", fan.token),
        passerby: await SseClient.open(instance, "/api/v1/streaming/public", passerby.token),
        anonymous: await SseClient.open(instance, "/api/v1/streaming/public"),
      };
      try {
        const limited = await postStatus(instance, hushed, "limited hello");
        assert.equal(JSON.parse((await streams.fan.next("update")).data).id, limited.id);
        const open = await postStatus(instance, fan, "open hello");
        // The others get the open post and never got the limited one.
        for (const sse of [streams.passerby, streams.anonymous]) {
          assert.equal(JSON.parse((await sse.next("update")).data).id, open.id);
          assert.ok(
            !sse.inbox.items.some((e) =>
              e.event === "update" && JSON.parse(e.data).id === limited.id
            ),
          );
        }
      } finally {
        for (const sse of Object.values(streams)) await sse.close();
      }
    });
  } finally {
    await instance.close({ destroy: true });
  }
});

// Several processes share one database only on PostgreSQL; PGlite has one owner.
test(
  "a block made in one process holds in another at once (PostgreSQL)",
  POSTGRES_ONLY,
  async () => {
    const first = await startInstance();
    const second = await startInstance({ databaseUrl: first.databaseUrl! });
    const peer = await startFakePeer();
    try {
      const admin = await staff(first, "boss", "admin");
      const actor = peer.publishActor("someone");
      const sendTo = (instance: TestInstance) => (request: Request) =>
        instance.request(request.url, request);
      let serial = 0;
      const note = () => {
        const id = `${actor}/notes/${++serial}`;
        return {
          "@context": AS,
          id: `${id}/activity`,
          type: "Create",
          actor,
          to: [PUBLIC],
          object: { id, type: "Note", attributedTo: actor, to: [PUBLIC], content: "hi" },
        };
      };
      const deliver = async (instance: TestInstance) =>
        await statusOf(
          await peer.deliver(`${instance.origin}/inbox`, note(), {
            keyId: `${actor}#main-key`,
            send: sendTo(instance),
          }),
        );
      // The second process has read the (empty) rules and keeps them.
      assert.equal(await deliver(second), 202);
      const res = await callJson(first, admin, "POST", "/api/v1/admin/domain_blocks", {
        domain: new URL(peer.origin).host,
        severity: "suspend",
      });
      assert.equal(res.status, 200);
      assert.equal(await deliver(first), 403, "the process that wrote: at once");
      await eventually(
        "the other process refuses",
        async () => await deliver(second) === 403,
        5_000,
      );
      await callJson(first, admin, "DELETE", `/api/v1/admin/domain_blocks/${res.body.id}`);
      await eventually("and lifts it", async () => await deliver(second) === 202, 5_000);
    } finally {
      await peer.close();
      await second.close();
      await first.close({ destroy: true });
    }
  },
);
