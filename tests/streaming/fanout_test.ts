/**
 * One post to many followers' `user` sockets, as the hub now sends it
 * (targets looked up per account, viewers grouped by their flags, one
 * rendering per group, sends in slices): each follower gets the view the
 * REST API gives it, a follower who muted the author or blocks a mentioned
 * account gets nothing, a follower who reads home on the frame finds
 * the post there, and a viewer who does not follow the author (a hashtag
 * follower) sees what follows from that.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "./helpers.ts";

test("a post to many followers' sockets", async (t) => {
  const instance = await startInstance({ listen: true });
  const open: WsClient[] = [];
  try {
    const author = await createUser(instance, "author");
    const erin = await createUser(instance, "erin");
    const names = ["plain1", "plain2", "faved", "warned", "muting", "blocking"];
    const followers = await Promise.all(names.map((name) => createUser(instance, name)));
    const by = Object.fromEntries(names.map((name, i) => [name, followers[i]]));
    for (const f of followers) {
      await ok(instance, f, "POST", `/api/v1/accounts/${author.id}/follow`);
      open.push(
        await WsClient.open(instance, `/api/v1/streaming?stream=user&access_token=${f.token}`),
      );
    }
    const socket = Object.fromEntries(names.map((name, i) => [name, open[i]]));
    await ok(instance, by.warned, "POST", "/api/v2/filters", {
      title: "Weather",
      context: ["home"],
      filter_action: "warn",
      keywords_attributes: [{ keyword: "rain" }],
    });
    await socket.warned.next("filters_changed", "user");
    await ok(instance, by.muting, "POST", `/api/v1/accounts/${author.id}/mute`);
    await ok(instance, by.blocking, "POST", `/api/v1/accounts/${erin.id}/block`);

    await t.step("each follower gets its own view; home holds the post on the frame", async () => {
      // A boost of a post one follower favourited: his view differs (favourited).
      const original = await postStatus(instance, erin, "Rain all day");
      await ok(instance, by.faved, "POST", `/api/v1/statuses/${original.id}/favourite`);
      const boost = await ok(instance, author, "POST", `/api/v1/statuses/${original.id}/reblog`);
      for (const name of ["plain1", "plain2", "faved", "warned"]) {
        const frame = await socket[name].next("update", "user");
        const payload = JSON.parse(frame.payload!);
        assert.equal(payload.id, boost.id, name);
        assert.equal(payload.reblog.favourited, name === "faved", name);
        // Read on the frame: home already holds it, and shows it the same.
        const home = await ok(instance, by[name], "GET", "/api/v1/timelines/home?limit=1");
        assert.equal(home[0]?.id, boost.id, `${name}'s home on the frame`);
        assert.deepEqual(payload, home[0], name);
      }
    });

    // A new post that replies to nothing cannot be bookmarked or its thread
    // muted before its frame (neither is looked up for it); a reply can be.
    await t.step("a reply in a thread a follower muted arrives marked muted", async () => {
      const root = await postStatus(instance, author, "A thread");
      for (const name of ["plain1", "plain2"]) await socket[name].next("update", "user");
      await ok(instance, by.plain2, "POST", `/api/v1/statuses/${root.id}/mute`);
      await ok(instance, by.plain2, "POST", `/api/v1/statuses/${root.id}/bookmark`);
      const reply = await postStatus(instance, author, "More", { in_reply_to_id: root.id });
      for (const name of ["plain1", "plain2"]) {
        const payload = JSON.parse((await socket[name].next("update", "user")).payload!);
        assert.equal(payload.id, reply.id, name);
        assert.equal(payload.muted, name === "plain2", name);
        assert.deepEqual(
          payload,
          await ok(instance, by[name], "GET", `/api/v1/statuses/${reply.id}`),
        );
      }
    });

    await t.step("a muting follower and one blocking a mentioned account get nothing", async () => {
      socket.blocking.clear();
      socket.muting.clear();
      const mention = await postStatus(instance, author, "Hello @erin");
      await socket.plain1.next("update", "user");
      await ok(instance, by.muting, "POST", `/api/v1/accounts/${erin.id}/follow`);
      // Each socket's marker, a later post it does get: the author's next post
      // for the blocking follower, erin's (now followed) for the muting one.
      const after = await postStatus(instance, author, "No mention here");
      await socket.blocking.nothingBefore("update", {
        event: "update",
        id: after.id,
        stream: "user",
      });
      const unmuted = await postStatus(instance, erin, "From erin");
      await socket.muting.nothingBefore("update", {
        event: "update",
        id: unmuted.id,
        stream: "user",
      });
      const home = await ok(instance, by.blocking, "GET", "/api/v1/timelines/home");
      assert.ok(!home.some((s: { id: string }) => s.id === mention.id));
    });

    // Whether each viewer follows the author changes a status whose quote
    // policy is `followers` (the flags statement answers who does NOT).
    await t.step(
      "a follower and a hashtag follower see the quote policy as REST does",
      async () => {
        const tagger = await createUser(instance, "tagger");
        await ok(instance, tagger, "POST", "/api/v1/tags/policies/follow");
        const taggerWs = await WsClient.open(
          instance,
          `/api/v1/streaming?stream=user&access_token=${tagger.token}`,
        );
        open.push(taggerWs);
        const post = await postStatus(instance, author, "About #policies", {
          quote_approval_policy: "followers",
        });
        const views = [["plain1", socket.plain1, by.plain1], ["tagger", taggerWs, tagger]] as const;
        const seen: Record<string, string> = {};
        for (const [name, ws, user] of views) {
          const frame = await ws.inbox.take(
            (f) => f.event === "update" && JSON.parse(f.payload!).id === post.id,
            10_000,
            `${name}'s update`,
          );
          const payload = JSON.parse(frame.payload!);
          assert.deepEqual(payload, await ok(instance, user, "GET", `/api/v1/statuses/${post.id}`));
          seen[name] = payload.quote_approval.current_user;
        }
        assert.deepEqual(seen, { plain1: "automatic", tagger: "denied" });
      },
    );
  } finally {
    for (const ws of open) await ws.close();
    await instance.close();
  }
});
