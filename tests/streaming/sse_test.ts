/**
 * The server-sent-events streams with a real reader (fetch and the body):
 * health, unknown channels, the user, notification, direct, hashtag, list
 * and public streams with their payloads as REST renders them, announcements
 * and filters_changed on user, refusals, a revoked token's stream ended.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser } from "../fixtures/users.ts";
import { hashSecret } from "../../actors/oauth/tokens.ts";
import { createAnnouncement, deleteAnnouncement } from "../../actors/announcements/manage.ts";
import { mediaRow } from "../fixtures/media.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { remoteStatus, SseClient } from "./helpers.ts";

test("SSE streams", async (t) => {
  const instance = await startInstance({ listen: true });
  const open: SseClient[] = [];
  const connect = async (path: string, token?: string) => {
    const client = await SseClient.open(instance, path, token);
    open.push(client);
    return client;
  };
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    await ok(instance, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);

    await t.step("health, unknown channels and refusals", async () => {
      const health = await instance.request("/api/v1/streaming/health");
      assert.equal(health.status, 200);
      assert.equal(await health.text(), "OK");
      const refused = async (path: string, token: string | null, status: number, error: string) => {
        const res = await callJson(instance, token, "GET", path);
        assert.equal(res.status, status, path);
        assert.deepEqual(res.body, { error }, path);
      };
      await refused("/api/v1/streaming/nonsense", bob.token, 400, "Unknown channel requested");
      await refused("/api/v1/streaming/user/other", bob.token, 400, "Unknown channel requested");
      await refused("/api/v1/streaming/user", null, 401, "Missing access token");
      await refused("/api/v1/streaming/user", "wrong", 401, "Invalid access token");
      await refused("/api/v1/streaming/hashtag", bob.token, 400, "Missing tag name parameter");
      await refused("/api/v1/streaming/list", bob.token, 400, "Missing list name parameter");
      const list = await ok(instance, alice, "POST", "/api/v1/lists", { title: "Mine" });
      await refused(
        `/api/v1/streaming/list?list=${list.id}`,
        bob.token,
        401,
        "Not authorized to stream this list",
      );
      const notes = await createToken(instance, bob.userId, ["read:notifications"]);
      await refused(
        "/api/v1/streaming/user",
        notes,
        401,
        "Access token does not have the required scopes",
      );
      const statusesOnly = await createToken(instance, bob.userId, ["read:statuses"]);
      await refused(
        "/api/v1/streaming/user/notification",
        statusesOnly,
        401,
        "Access token does not have the required scopes",
      );
    });

    await t.step("user: opened with :), a followee's post as REST shows it", async () => {
      // A trailing slash is tolerated.
      const sse = await connect("/api/v1/streaming/user/", bob.token);
      assert.equal(sse.response.headers.get("content-type"), "text/event-stream");
      const status = await postStatus(instance, alice, "Hello over SSE");
      const event = await sse.next("update");
      assert.deepEqual(
        JSON.parse(event.data),
        await ok(instance, bob, "GET", `/api/v1/statuses/${status.id}`),
      );
      assert.equal(sse.comments[0], ":)");
      await ok(instance, alice, "DELETE", `/api/v1/statuses/${status.id}`);
      assert.equal((await sse.next("delete")).data, status.id);
    });

    await t.step("user/notification: a mention", async () => {
      const sse = await connect("/api/v1/streaming/user/notification", bob.token);
      const status = await postStatus(instance, alice, "Hi @bob");
      const event = await sse.next("notification");
      const payload = JSON.parse(event.data);
      assert.equal(payload.type, "mention");
      assert.equal(payload.status.id, status.id);
      assert.deepEqual(
        payload,
        await ok(instance, bob, "GET", `/api/v1/notifications/${payload.id}`),
      );
      // A second mention's notification: the statuses' updates, had they
      // been sent here, would have come before it.
      await postStatus(instance, alice, "Again @bob");
      await sse.nothingBefore("update", { event: "notification" });
    });

    await t.step("direct: the conversation as REST shows it", async () => {
      const sse = await connect("/api/v1/streaming/direct", bob.token);
      const status = await postStatus(instance, alice, "@bob psst", { visibility: "direct" });
      const event = await sse.next("conversation");
      const payload = JSON.parse(event.data);
      assert.equal(payload.last_status.id, status.id);
      const rest = await ok(instance, bob, "GET", "/api/v1/conversations");
      assert.deepEqual(payload, rest.find((c: { id: string }) => c.id === payload.id));
    });

    await t.step("hashtag, hashtag/local, list and public streams", async () => {
      const list = await ok(instance, bob, "POST", "/api/v1/lists", { title: "Friends" });
      await ok(instance, bob, "POST", `/api/v1/lists/${list.id}/accounts`, {
        account_ids: [alice.id],
      });
      const tag = await connect("/api/v1/streaming/hashtag?tag=Birds", bob.token);
      const localTag = await connect("/api/v1/streaming/hashtag/local?tag=birds", bob.token);
      const onList = await connect(`/api/v1/streaming/list?list=${list.id}`, bob.token);
      // Anonymous: the public preview is on by default.
      const anonymous = await connect("/api/v1/streaming/public/local");
      const remote = await connect("/api/v1/streaming/public/remote", bob.token);
      const media = await connect("/api/v1/streaming/public?only_media=true", bob.token);
      const status = await postStatus(instance, alice, "Look #birds");
      for (const sse of [tag, localTag, onList]) {
        assert.equal(JSON.parse((await sse.next("update")).data).id, status.id);
      }
      // Anonymous viewers get the anonymous rendering (no viewer flags).
      assert.deepEqual(
        JSON.parse((await anonymous.next("update")).data),
        await ok(instance, null, "GET", `/api/v1/statuses/${status.id}`),
      );
      // A remote status and a local one with media, each shown on its
      // stream: the local post without media came before them.
      const ritaId = await insertRemoteAccount(instance, "rita", "remote.example");
      const rita = { accountId: ritaId, actorUri: "https://remote.example/users/rita" };
      const fromAfar = await remoteStatus(instance, rita, "From afar");
      await remote.nothingBefore("update", { event: "update", id: fromAfar });
      const pictured = await postStatus(instance, alice, "A picture", {
        media_ids: [await mediaRow(instance, alice)],
      });
      await media.nothingBefore("update", { event: "update", id: pictured.id });
    });

    await t.step("user: filters_changed and announcements", async () => {
      const sse = await connect("/api/v1/streaming/user", bob.token);
      await ok(instance, bob, "POST", "/api/v2/filters", {
        title: "Nope",
        context: ["home"],
        keywords_attributes: [{ keyword: "nope" }],
      });
      assert.equal((await sse.next("filters_changed")).data, "undefined");
      const { ctx } = instance.rookery;
      const row = await createAnnouncement(ctx.database.db, ctx.config, { text: "Maintenance" });
      const event = await sse.next("announcement");
      const payload = JSON.parse(event.data);
      assert.equal(payload.id, row.id);
      assert.match(payload.content, /Maintenance/);
      const rest = await ok(instance, bob, "GET", "/api/v1/announcements");
      assert.deepEqual({ ...payload, read: undefined }, { ...rest[0], read: undefined });
      await ok(
        instance,
        bob,
        "PUT",
        `/api/v1/announcements/${row.id}/reactions/${encodeURIComponent("👍")}`,
      );
      const reaction = await sse.next("announcement.reaction");
      assert.deepEqual(JSON.parse(reaction.data), {
        name: "👍",
        count: 1,
        announcement_id: row.id,
      });
      await deleteAnnouncement(ctx.database.db, row.id);
      assert.equal((await sse.next("announcement.delete")).data, row.id);
    });

    await t.step("a revoked token's stream ends", async () => {
      const token = await createToken(instance, bob.userId);
      const sse = await connect("/api/v1/streaming/user", token);
      await instance.rookery.ctx.database.db.execute(sql`UPDATE oauth_access_tokens
        SET revoked_at = now() WHERE token_hash = ${await hashSecret(token)}`);
      await sse.ended;
    });
  } finally {
    for (const sse of open) await sse.close();
    await instance.close({ destroy: true });
  }
});

test("SSE and WebSocket public streams without the public preview", async () => {
  const instance = await startInstance({ listen: true, env: { PUBLIC_PREVIEW: "false" } });
  try {
    const alice = await createUser(instance, "alice");
    for (const path of ["/api/v1/streaming/public", "/api/v1/streaming/hashtag?tag=x"]) {
      const res = await callJson(instance, null, "GET", path);
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { error: "Missing access token" });
    }
    for (const query of ["", "?stream=public"]) {
      const res = await instance.rookery.fetch(
        new Request(`${instance.origin}/api/v1/streaming${query}`, {
          headers: { Upgrade: "websocket", Connection: "Upgrade" },
        }),
      );
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: "Missing access token" });
    }
    const sse = await SseClient.open(instance, "/api/v1/streaming/public", alice.token);
    try {
      const status = await postStatus(instance, alice, "Members only");
      assert.equal(JSON.parse((await sse.next("update")).data).id, status.id);
    } finally {
      await sse.close();
    }
  } finally {
    await instance.close({ destroy: true });
  }
});
