/**
 * The streaming producers: every command publishes the events the streams
 * need, in its own transaction, naming exactly who is concerned. Driven over
 * HTTP (and the admin command line for announcements, and a second instance
 * for an inbound edit and delete); the events are read in the test process
 * through the process core's stream bus, the way the transport reads them.
 *
 * Between actions the test publishes a marker event of its own and waits for
 * it: the bus delivers in commit order, so everything the action committed
 * has arrived by then, and "nothing else" can be asserted exactly.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { arrived, followRemote } from "../fixtures/federation.ts";
import { cli, type CliTarget, expectCode } from "../admin/cli.ts";
import { publishStreamEvent, type StreamEvent } from "../../actors/streaming/bus.ts";
import { sql } from "drizzle-orm";
import { accounts, follows } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";

const dataDir = await Deno.makeTempDir({ prefix: "rookery-producers-" });
const main = await startInstance({ dataDir, memory: false, adminSocket: true, tls: true });
const target: CliTarget = { dataDir, databaseUrl: main.databaseUrl };

/** Every event published on the main instance's database, in order. */
const seen: StreamEvent[] = [];
const waiters = new Set<() => void>();
const stopListening = await main.rookery.ctx.core.streamBus.subscribe((event) => {
  seen.push(event);
  for (const wake of waiters) wake();
});

/** Resolves with the first event (already seen or to come) that `match` accepts. */
function waitFor(what: string, match: (e: StreamEvent) => boolean, ms = 30_000) {
  return new Promise<StreamEvent>((resolve, reject) => {
    const check = () => {
      const found = seen.find(match);
      if (!found) return false;
      waiters.delete(check);
      clearTimeout(timer);
      resolve(found);
      return true;
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`no ${what} event; seen: ${JSON.stringify(seen)}`));
    }, ms);
    if (!check()) waiters.add(check);
  });
}

let markers = 0;
/** The events published since the last call (after a marker, see the module comment). */
async function drain(): Promise<StreamEvent[]> {
  const marker = `marker-${++markers}`;
  const isMarker = (e: StreamEvent) => e.event === "filters_changed" && e.accountId === marker;
  await publishStreamEvent(main.rookery.ctx.database.db, {
    event: "filters_changed",
    accountId: marker,
  });
  const found = await waitFor(marker, isMarker);
  const taken = seen.splice(0, seen.indexOf(found) + 1);
  taken.pop();
  return taken;
}

/** `count` local accounts (rows only: no user, no token) that follow `targetId`; their ids. */
async function insertLocalFollowers(targetId: string, count: number): Promise<string[]> {
  const { db } = main.rookery.ctx.database;
  const rows = await db.insert(accounts).values(
    Array.from({ length: count }, (_, i) => ({
      id: newId(),
      username: `crowd${i}`,
      uri: `${main.origin}/users/crowd${i}`,
    })),
  ).returning({ id: accounts.id });
  await db.insert(follows).values(
    rows.map((r) => ({ id: newId(), accountId: r.id, targetAccountId: targetId })),
  );
  return rows.map((r) => r.id);
}

const sorted = (ids: readonly string[]) => [...ids].sort();
const byJson = (a: unknown, b: unknown) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1;
const idsOf = (...users: TestUser[]) => sorted(users.map((u) => u.id));

/** An event with its id lists sorted, for comparisons. */
function normal(e: StreamEvent): StreamEvent {
  if ("home" in e) return { ...e, home: sorted(e.home), lists: sorted(e.lists) };
  return e;
}

function only<E extends StreamEvent["event"]>(
  events: StreamEvent[],
  event: E,
): Extract<StreamEvent, { event: E }>[] {
  return events.filter((e) => e.event === event) as Extract<StreamEvent, { event: E }>[];
}

test("streaming producers: each command publishes what changed and who holds it", async (t) => {
  try {
    const users = await Promise.all(
      ["alice", "bob", "carol", "erin", "frank", "gina", "ivan", "harry"].map((n) =>
        createUser(main, n)
      ),
    );
    const [alice, bob, carol, erin, frank, gina, ivan, harry] = users;
    const follow = (a: TestUser, b: TestUser) =>
      ok(main, a, "POST", `/api/v1/accounts/${b.id}/follow`);
    let listId = "";

    await t.step("notification: one per unfiltered notification, with its id", async () => {
      await follow(bob, alice);
      await follow(carol, alice);
      await follow(erin, alice);
      await follow(ivan, bob);
      const events = await drain();
      assert.deepEqual(
        events.map((e) => e.event === "notification" ? e.accountId : e.event),
        [alice.id, alice.id, alice.id, bob.id],
      );
      const notified = await ok(main, alice, "GET", "/api/v1/notifications?types[]=follow");
      assert.deepEqual(
        sorted(only(events, "notification").slice(0, 3).map((e) => e.notificationId)),
        sorted(notified.map((n: any) => n.id)),
      );
      // Relationships that notify nobody publish nothing.
      await ok(main, carol, "POST", `/api/v1/accounts/${alice.id}/mute`);
      await ok(main, erin, "POST", `/api/v1/accounts/${frank.id}/block`);
      await ok(main, gina, "POST", "/api/v1/tags/streams/follow");
      listId = (await ok(main, bob, "POST", "/api/v1/lists", { title: "Friends" })).id;
      await ok(main, bob, "POST", `/api/v1/lists/${listId}/accounts`, { account_ids: [alice.id] });
      assert.deepEqual(await drain(), []);
    });

    let hello: any, helloUpdate: StreamEvent;
    await t.step("status.update: the feeds that hold the edited status", async () => {
      hello = await postStatus(main, alice, "hello #streams", { visibility: "public" });
      [helloUpdate] = await drain();
      // A muted author (carol) is not in her feed; a tag follower (gina) and a list are.
      assert.deepEqual(normal(helloUpdate), {
        event: "update",
        statusId: hello.id,
        home: idsOf(alice, bob, erin, gina),
        lists: [listId],
      });
      await ok(main, alice, "PUT", `/api/v1/statuses/${hello.id}`, { status: "hello #streams!" });
      await ok(main, alice, "PUT", `/api/v1/statuses/${hello.id}`, { status: "#streams hello" });
      const events = (await drain()).map(normal);
      const edited = { ...helloUpdate, event: "status.update" };
      assert.deepEqual(events, [edited, edited]);

      // A follower who blocks a mentioned account (erin) never got it; frank is notified.
      const toFrank = await postStatus(main, alice, "@frank hi", { visibility: "public" });
      const [update, notification, ...rest] = await drain();
      assert.deepEqual(rest, []);
      assert.deepEqual(normal(update), {
        event: "update",
        statusId: toFrank.id,
        home: idsOf(alice, bob),
        lists: [listId],
      });
      const [mention] = await ok(main, frank, "GET", "/api/v1/notifications");
      assert.deepEqual(notification, {
        event: "notification",
        accountId: frank.id,
        notificationId: mention.id,
      });
      await ok(main, alice, "PUT", `/api/v1/statuses/${toFrank.id}`, { status: "@frank hi!" });
      assert.deepEqual((await drain()).map(normal), [{
        ...normal(update),
        event: "status.update",
      }]);

      // A revoked quote shows differently: the quote post's feeds hear of it, once.
      const quoted = await postStatus(main, alice, "quote me", { visibility: "public" });
      const quoting = await postStatus(main, bob, "quoting", {
        visibility: "public",
        quoted_status_id: quoted.id,
      });
      const quoteUpdate = only(await drain(), "update").find((e) => e.statusId === quoting.id)!;
      assert.ok(quoteUpdate.home.includes(ivan.id));
      const revoke = `/api/v1/statuses/${quoted.id}/quotes/${quoting.id}/revoke`;
      await ok(main, alice, "POST", revoke);
      assert.deepEqual((await drain()).map(normal), [{
        ...normal(quoteUpdate),
        event: "status.update",
      }]);
      await ok(main, alice, "POST", revoke);
      assert.deepEqual(await drain(), [], "revoked already");

      // A vote changes counts, but Mastodon streams nothing for it.
      const poll = await postStatus(main, alice, "which?", {
        visibility: "public",
        poll: { options: ["this", "that"], expires_in: 3600 },
      });
      await drain();
      await ok(main, bob, "POST", `/api/v1/polls/${poll.poll.id}/votes`, { choices: [0] });
      assert.deepEqual(await drain(), []);

      // Someone else's status: 404, nothing published.
      const res = await call(main, bob, "PUT", `/api/v1/statuses/${hello.id}`, { status: "mine" });
      assert.equal(res.status, 404);
      await res.body?.cancel();
      assert.deepEqual(await drain(), []);
    });

    await t.step("delete: the status and its boosts, from the feeds that held them", async () => {
      const boost = await ok(main, bob, "POST", `/api/v1/statuses/${hello.id}/reblog`);
      const [boostUpdate, reblogged] = await drain();
      // bob's own feed has the original already; his follower ivan gets the boost.
      assert.deepEqual(normal(boostUpdate), {
        event: "update",
        statusId: boost.id,
        home: idsOf(ivan),
        lists: [],
      });
      assert.equal(reblogged.event === "notification" && reblogged.accountId, alice.id);

      // Favourites notify; undoing one (or undoing nothing) publishes nothing.
      await ok(main, bob, "POST", `/api/v1/statuses/${hello.id}/favourite`);
      assert.deepEqual(only(await drain(), "notification").map((e) => e.accountId), [alice.id]);
      await ok(main, bob, "POST", `/api/v1/statuses/${hello.id}/unfavourite`);
      await ok(main, bob, "POST", `/api/v1/statuses/${hello.id}/unfavourite`);
      assert.deepEqual(await drain(), []);

      const res = await call(main, bob, "DELETE", `/api/v1/statuses/${hello.id}`);
      assert.equal(res.status, 404);
      await res.body?.cancel();
      assert.deepEqual(await drain(), []);

      await ok(main, alice, "DELETE", `/api/v1/statuses/${hello.id}`);
      assert.deepEqual((await drain()).map(normal), [
        { ...normal(helloUpdate), event: "delete" },
        { ...normal(boostUpdate), event: "delete" },
      ]);
      const again = await call(main, alice, "DELETE", `/api/v1/statuses/${hello.id}`);
      assert.equal(again.status, 404);
      await again.body?.cancel();
      assert.deepEqual(await drain(), []);
    });

    await t.step("delete: unreblog takes the boost out of the feeds it entered", async () => {
      const post = await postStatus(main, alice, "boost me", { visibility: "public" });
      const boost = await ok(main, bob, "POST", `/api/v1/statuses/${post.id}/reblog`);
      const boostUpdate = (await drain()).find((e) =>
        e.event === "update" && e.statusId === boost.id
      );
      assert.ok(boostUpdate && "home" in boostUpdate && boostUpdate.home.length === 1);
      await ok(main, bob, "POST", `/api/v1/statuses/${post.id}/unreblog`);
      assert.deepEqual((await drain()).map(normal), [{ ...normal(boostUpdate), event: "delete" }]);
      await ok(main, bob, "POST", `/api/v1/statuses/${post.id}/unreblog`);
      assert.deepEqual(await drain(), [], "an unreblog that undoes nothing");
    });

    await t.step("delete: a mute or block clears the author from one's home", async () => {
      const home = async (who: TestUser) =>
        (await ok(main, who, "GET", "/api/v1/timelines/home")).map((s: any) => s.id as string);
      const held = await home(erin);
      assert.ok(held.length > 0);
      await ok(main, erin, "POST", `/api/v1/accounts/${alice.id}/mute`);
      assert.deepEqual(
        (await drain()).map(normal).sort(byJson),
        sorted(held).map((statusId) => ({
          event: "delete",
          statusId,
          home: [erin.id],
          lists: [],
          feedsOnly: true,
        })),
      );
      assert.deepEqual(await home(erin), []);
      await ok(main, erin, "POST", `/api/v1/accounts/${alice.id}/mute`);
      assert.deepEqual(await drain(), [], "muted already: nothing left to clear");

      await postStatus(main, bob, "bob here", { visibility: "public" });
      await drain();
      const ivans = await home(ivan); // all bob's: ivan follows only him
      assert.ok(ivans.length > 0);
      await ok(main, ivan, "POST", `/api/v1/accounts/${bob.id}/block`);
      assert.deepEqual(
        (await drain()).map(normal).sort(byJson),
        sorted(ivans).map((statusId) => ({
          event: "delete",
          statusId,
          home: [ivan.id],
          lists: [],
          feedsOnly: true,
        })),
      );
    });

    await t.step("conversation: new direct statuses, read, a deleted last status", async () => {
      const conversationOf = async (who: TestUser) =>
        (await ok(main, who, "GET", "/api/v1/conversations"))[0].id as string;
      const dm1 = await postStatus(main, alice, "@bob secret", { visibility: "direct" });
      let events = await drain();
      const aliceConversation = await conversationOf(alice);
      const bobConversation = await conversationOf(bob);
      const conversationEvents = [
        { event: "conversation", accountId: alice.id, conversationId: aliceConversation },
        { event: "conversation", accountId: bob.id, conversationId: bobConversation },
      ];
      assert.deepEqual(only(events, "conversation"), conversationEvents);
      assert.deepEqual(only(events, "update").map((e) => [e.statusId, sorted(e.home)]), [
        [dm1.id, idsOf(alice, bob)],
      ]);
      assert.deepEqual(only(events, "notification").map((e) => e.accountId), [bob.id]);

      const dm2 = await postStatus(main, alice, "@bob more", {
        visibility: "direct",
        in_reply_to_id: dm1.id,
      });
      assert.deepEqual(only(await drain(), "conversation"), conversationEvents);

      await ok(main, bob, "POST", `/api/v1/conversations/${bobConversation}/read`);
      assert.deepEqual(await drain(), [conversationEvents[1]]);
      await ok(main, bob, "POST", `/api/v1/conversations/${bobConversation}/read`);
      assert.deepEqual(await drain(), [], "already read");
      const res = await call(main, alice, "POST", `/api/v1/conversations/${bobConversation}/read`);
      assert.equal(res.status, 404);
      await res.body?.cancel();
      assert.deepEqual(await drain(), [], "someone else's conversation");

      // The conversations go back to dm1: both hear of it, after the delete.
      await ok(main, alice, "DELETE", `/api/v1/statuses/${dm2.id}`);
      events = await drain();
      assert.deepEqual(events.map((e) => e.event), ["delete", "conversation", "conversation"]);
      assert.deepEqual(
        sorted(only(events, "conversation").map((e) => e.conversationId)),
        sorted([aliceConversation, bobConversation]),
      );
      // The last status of a conversation gone: the conversation goes, unannounced.
      await ok(main, alice, "DELETE", `/api/v1/statuses/${dm1.id}`);
      assert.deepEqual((await drain()).map((e) => e.event), ["delete"]);
    });

    await t.step("notifications_merged: accepting a filtered stranger's messages", async () => {
      // harry does not follow alice: her direct message is filtered for him.
      await postStatus(main, alice, "@harry hello stranger", { visibility: "direct" });
      const events = await drain();
      assert.deepEqual(only(events, "notification"), []);
      assert.deepEqual(only(events, "conversation").map((e) => e.accountId), [alice.id]);

      const [request] = await ok(main, harry, "GET", "/api/v1/notifications/requests");
      await ok(main, harry, "POST", `/api/v1/notifications/requests/${request.id}/accept`);
      const [conversation] = await ok(main, harry, "GET", "/api/v1/conversations");
      assert.deepEqual(await drain(), [
        { event: "conversation", accountId: harry.id, conversationId: conversation.id },
        { event: "notifications_merged", accountId: harry.id },
      ]);
      const res = await call(
        main,
        harry,
        "POST",
        `/api/v1/notifications/requests/${request.id}/accept`,
      );
      assert.equal(res.status, 404);
      await res.body?.cancel();
      assert.deepEqual(await drain(), []);
    });

    await t.step("filters_changed: one per change of filters, keywords and statuses", async () => {
      const changed = [{ event: "filters_changed", accountId: alice.id }];
      const filter = await ok(main, alice, "POST", "/api/v2/filters", {
        title: "Spoilers",
        context: ["home"],
        keywords_attributes: [{ keyword: "finale" }, { keyword: "ending" }],
      });
      assert.deepEqual(await drain(), changed);
      await ok(main, alice, "PUT", `/api/v2/filters/${filter.id}`, {});
      assert.deepEqual(await drain(), [], "an update that changes nothing");
      await ok(main, alice, "PUT", `/api/v2/filters/${filter.id}`, { title: "Spoiler alert" });
      assert.deepEqual(await drain(), changed);

      const keyword = await ok(main, alice, "POST", `/api/v2/filters/${filter.id}/keywords`, {
        keyword: "twist",
      });
      assert.deepEqual(await drain(), changed);
      await ok(main, alice, "PUT", `/api/v2/filters/keywords/${keyword.id}`, { whole_word: false });
      assert.deepEqual(await drain(), changed);
      await ok(main, alice, "DELETE", `/api/v2/filters/keywords/${keyword.id}`);
      assert.deepEqual(await drain(), changed);

      const post = await postStatus(main, bob, "a spoiler", { visibility: "public" });
      await drain();
      const filtered = await ok(main, alice, "POST", `/api/v2/filters/${filter.id}/statuses`, {
        status_id: post.id,
      });
      assert.deepEqual(await drain(), changed);
      const taken = await callJson(main, alice, "POST", `/api/v2/filters/${filter.id}/statuses`, {
        status_id: post.id,
      });
      assert.equal(taken.status, 422);
      await ok(main, alice, "DELETE", `/api/v2/filters/statuses/${filtered.id}`);
      assert.deepEqual(await drain(), changed);

      const v1 = await ok(main, alice, "POST", "/api/v1/filters", {
        phrase: "cliffhanger",
        context: ["home"],
      });
      assert.deepEqual(await drain(), changed);
      await ok(main, alice, "PUT", `/api/v1/filters/${v1.id}`, { phrase: "cliff" });
      assert.deepEqual(await drain(), changed);
      await ok(main, alice, "DELETE", `/api/v1/filters/${v1.id}`);
      assert.deepEqual(await drain(), changed);

      // Refused commands publish nothing: someone else's filter, invalid input.
      for (
        const [method, path, body] of [
          ["DELETE", `/api/v2/filters/${filter.id}`, undefined],
          ["PUT", `/api/v2/filters/${filter.id}`, { title: "x" }],
          ["POST", `/api/v2/filters/${filter.id}/keywords`, { keyword: "x" }],
        ] as const
      ) {
        const res = await call(main, bob, method, path, body);
        assert.equal(res.status, 404, path);
        await res.body?.cancel();
      }
      const invalid = await callJson(main, alice, "PUT", `/api/v2/filters/${filter.id}`, {
        keywords_attributes: [{ keyword: "" }, { keyword: "x".repeat(10_000) }],
      });
      assert.equal(invalid.status, 422);
      assert.deepEqual(await drain(), []);

      await ok(main, alice, "DELETE", `/api/v2/filters/${filter.id}`);
      assert.deepEqual(await drain(), changed);
    });

    await t.step("announcements: published, reactions, unpublished and deleted", async () => {
      const create = async (...args: string[]) => {
        const run = await cli(target, "announcement", "create", "--text", "News", ...args);
        expectCode(run, 0);
        return run.stdout.match(/Created announcement (\d+)/)![1];
      };
      const admin = async (...args: string[]) =>
        expectCode(await cli(target, "announcement", ...args), 0);
      const first = await create();
      assert.deepEqual(await drain(), [{ event: "announcement", announcementId: first }]);
      const draft = await create("--unpublished");
      assert.deepEqual(await drain(), []);
      await admin("publish", draft);
      assert.deepEqual(await drain(), [{ event: "announcement", announcementId: draft }]);
      await admin("publish", draft);
      assert.deepEqual(await drain(), [], "published already");

      const react = (who: TestUser, method: string) =>
        ok(
          main,
          who,
          method,
          `/api/v1/announcements/${first}/reactions/${encodeURIComponent("👍")}`,
        );
      const reaction = (count: number) => ({
        event: "announcement.reaction",
        announcementId: first,
        name: "👍",
        count,
      });
      await react(alice, "PUT");
      await react(bob, "PUT");
      await react(alice, "PUT");
      assert.deepEqual(await drain(), [reaction(1), reaction(2)]);
      await react(alice, "DELETE");
      await react(alice, "DELETE");
      assert.deepEqual(await drain(), [reaction(1)]);

      await admin("unpublish", first);
      assert.deepEqual(await drain(), [{ event: "announcement.delete", announcementId: first }]);
      await admin("unpublish", first);
      await admin("delete", first);
      assert.deepEqual(await drain(), [], "never shown again since");
      await admin("delete", draft);
      assert.deepEqual(await drain(), [{ event: "announcement.delete", announcementId: draft }]);
    });

    await t.step(
      "from the inbox: a remote edit and delete reach the feeds holding it",
      async () => {
        const remote = await startInstance({ tls: true });
        try {
          const rita = await createUser(remote, "rita");
          await followRemote(main, bob, remote, rita);
          const post = await postStatus(remote, rita, "remote news", { visibility: "public" });
          const stored = await arrived(main, post.uri);
          const update = await waitFor(
            "update",
            (e) => e.event === "update" && e.statusId === stored.id,
          );
          assert.deepEqual(normal(update), {
            event: "update",
            statusId: stored.id,
            home: idsOf(bob),
            lists: [],
          });
          await ok(remote, rita, "PUT", `/api/v1/statuses/${post.id}`, { status: "remote news!" });
          const edit = await waitFor(
            "status.update",
            (e) => e.event === "status.update" && e.statusId === stored.id,
          );
          assert.deepEqual(normal(edit), { ...normal(update), event: "status.update" });
          await ok(remote, rita, "DELETE", `/api/v1/statuses/${post.id}`);
          const gone = await waitFor(
            "delete",
            (e) => e.event === "delete" && e.statusId === stored.id,
          );
          assert.deepEqual(normal(gone), { ...normal(update), event: "delete" });
        } finally {
          await remote.close({ destroy: true });
        }
      },
    );

    await t.step(
      "update: a fan-out too long to notify inline arrives stored, in its place",
      async () => {
        // The fan-out statement notifies its own `update` when it fits a NOTIFY;
        // 400 followers' ids do not (7,000 bytes): stored, notified by reference.
        const crowd = await createUser(main, "crowd");
        const followerIds = await insertLocalFollowers(crowd.id, 400);
        await drain(); // what the steps before left
        const post = await postStatus(main, crowd, "@bob hello all", { visibility: "public" });
        const [update, notification, ...rest] = await drain();
        assert.deepEqual(rest, []);
        assert.deepEqual(normal(update), {
          event: "update",
          statusId: post.id,
          home: sorted([crowd.id, ...followerIds]),
          lists: [],
        });
        assert.equal(notification.event === "notification" && notification.accountId, bob.id);
        // Stored, not sent inline.
        const [stored] = await main.rookery.ctx.database.rows<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM stream_events WHERE payload->>'statusId' = ${post.id}`,
        );
        assert.equal(stored.n, 1);
      },
    );
  } finally {
    stopListening();
    await main.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
