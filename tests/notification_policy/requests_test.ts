/**
 * The policy at work and the requests it opens, over HTTP with real posts:
 * a stranger's direct message is filtered (hidden from lists, counts and
 * groups unless include_filtered) and opens a request; accept merges it and
 * lets the sender through from then on; dismiss deletes it; drop records
 * nothing; for_not_following, for_not_followers and for_new_accounts screen
 * other types; answers to one's own direct messages pass; someone else's
 * request is a 404; requests page with Link headers; a blocked sender's request is hidden.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { links } from "../fixtures/api.ts";
import { fixtures, type TestUser } from "../notifications/helpers.ts";
import { accounts, follows } from "../../db/schema/mod.ts";

test("notification requests: filter, accept, dismiss, drop, other conditions, paging", async (t) => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const [alice, bob, carol, dave] = await Promise.all(
      ["alice", "bob", "carol", "dave"].map((n) => f.user(n)),
    );
    const { ok, post } = f;
    const dm = (who: TestUser, status: string, extra: Record<string, unknown> = {}) =>
      post(who, status, { visibility: "direct", ...extra });
    const notes = async (who: TestUser, query = ""): Promise<string[]> =>
      (await ok(who, "GET", `/api/v1/notifications${query}`)).map((n: any) =>
        `${n.type}:${n.account.username}${n.status ? `:${n.status.id}` : ""}`
      );
    const requests = (who: TestUser, query = "") =>
      ok(who, "GET", `/api/v1/notifications/requests${query}`);
    const summary = async (who: TestUser) =>
      (await ok(who, "GET", "/api/v2/notifications/policy")).summary;
    const mine = await post(alice, "Alice's post");

    let bobRequest: any;
    await t.step("a stranger's direct message is filtered and opens a request", async () => {
      const first = await dm(bob, "@alice psst");
      assert.deepEqual(await notes(alice), []);
      assert.deepEqual(await notes(alice, "?include_filtered=true"), [
        `mention:bob:${first.id}`,
      ]);
      assert.deepEqual(await notes(alice, `?account_id=${bob.id}`), [`mention:bob:${first.id}`]);
      assert.deepEqual(await ok(alice, "GET", "/api/v1/notifications/unread_count"), { count: 0 });
      assert.deepEqual(await ok(alice, "GET", "/api/v2/notifications/unread_count"), { count: 0 });
      const grouped = await ok(alice, "GET", "/api/v2/notifications");
      assert.deepEqual(grouped.notification_groups, []);
      const groupedAll = await ok(alice, "GET", "/api/v2/notifications?include_filtered=true");
      assert.equal(groupedAll.notification_groups.length, 1);

      const [request] = await requests(alice);
      assert.deepEqual(Object.keys(request), [
        "id",
        "created_at",
        "updated_at",
        "account",
        "notifications_count",
        "last_status",
      ]);
      assert.equal(request.account.id, bob.id);
      assert.equal(request.notifications_count, "1");
      assert.equal(request.last_status.id, first.id);

      // A second one joins the same request; a public mention and a favourite are accepted.
      const second = await dm(bob, "@alice psst again");
      await post(bob, "@alice in public");
      await ok(bob, "POST", `/api/v1/statuses/${mine.id}/favourite`);
      const list = await requests(alice);
      assert.equal(list.length, 1);
      assert.equal(list[0].id, request.id);
      assert.equal(list[0].notifications_count, "2");
      assert.equal(list[0].last_status.id, second.id);
      assert.deepEqual(await summary(alice), {
        pending_requests_count: 1,
        pending_notifications_count: 2,
      });
      assert.deepEqual((await notes(alice)).map((n) => n.split(":").slice(0, 2).join(":")), [
        "favourite:bob",
        "mention:bob",
      ]);
      const one = await ok(alice, "GET", `/api/v1/notifications/requests/${request.id}`);
      assert.equal(one.notifications_count, "2");
      bobRequest = one;
    });

    await t.step("someone else's request, or a malformed id: 404", async () => {
      const id = bobRequest.id;
      for (
        const [method, path] of [
          ["GET", `/api/v1/notifications/requests/${id}`],
          ["POST", `/api/v1/notifications/requests/${id}/accept`],
          ["POST", `/api/v1/notifications/requests/${id}/dismiss`],
          ["GET", "/api/v1/notifications/requests/nonsense"],
          ["POST", "/api/v1/notifications/requests/99999999999/accept"],
        ]
      ) {
        const res = await f.call(carol, method, path);
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.deepEqual(res.body, { error: "Record not found" });
      }
      // In bulk, others' ids are ignored.
      assert.deepEqual(
        await ok(carol, "POST", "/api/v1/notifications/requests/accept", { id: [id, "junk"] }),
        {},
      );
      assert.deepEqual(
        await ok(carol, "POST", "/api/v1/notifications/requests/dismiss", { id: [id] }),
        {},
      );
      assert.equal((await requests(alice)).length, 1);
      assert.deepEqual(await requests(carol), []);
    });

    await t.step("accept: merged now, and the sender passes from then on", async () => {
      assert.deepEqual(
        await ok(alice, "POST", `/api/v1/notifications/requests/${bobRequest.id}/accept`),
        {},
      );
      assert.deepEqual(await ok(alice, "GET", "/api/v1/notifications/requests/merged"), {
        merged: true,
      });
      assert.deepEqual(await requests(alice), []);
      assert.equal(
        (await f.call(alice, "GET", `/api/v1/notifications/requests/${bobRequest.id}`)).status,
        404,
      );
      assert.equal((await notes(alice)).filter((n) => n.startsWith("mention:bob")).length, 3);
      const third = await dm(bob, "@alice and again");
      assert.equal((await notes(alice))[0], `mention:bob:${third.id}`);
      assert.deepEqual(await requests(alice), []);
      assert.deepEqual(await summary(alice), {
        pending_requests_count: 0,
        pending_notifications_count: 0,
      });
    });

    await t.step("answers to one's own direct message pass", async () => {
      const asked = await dm(alice, "@carol a question");
      const answer = await dm(carol, "@alice an answer", { in_reply_to_id: asked.id });
      assert.equal((await notes(alice))[0], `mention:carol:${answer.id}`);
      // Carol did not start it the other way round: alice's answer to dave's message
      // passes for dave, but dave's unsolicited one to alice does not.
      const daves = await dm(dave, "@alice hello?");
      assert.ok(!(await notes(alice)).includes(`mention:dave:${daves.id}`));
      const reply = await dm(alice, "@dave hi", { in_reply_to_id: daves.id });
      assert.deepEqual(await notes(dave), [`mention:alice:${reply.id}`]);
    });

    await t.step("dismiss: gone from the list and the counts; a new message reopens", async () => {
      const [request] = await requests(alice);
      assert.equal(request.account.id, dave.id);
      assert.deepEqual(
        await ok(alice, "POST", `/api/v1/notifications/requests/${request.id}/dismiss`),
        {},
      );
      assert.deepEqual(await requests(alice), []);
      const dismissed = await requests(alice, "?dismissed=true");
      assert.deepEqual(dismissed.map((r: any) => r.id), [request.id]);
      assert.deepEqual(await notes(alice, `?account_id=${dave.id}`), [], "its notifications go");
      assert.equal((await summary(alice)).pending_requests_count, 0);
      const again = await dm(dave, "@alice are you there?");
      const [reopened] = await requests(alice);
      assert.notEqual(reopened.id, request.id);
      assert.ok(BigInt(reopened.id) > BigInt(request.id));
      assert.equal(reopened.notifications_count, "1");
      assert.equal(reopened.last_status.id, again.id);
      assert.deepEqual(await requests(alice, "?dismissed=true"), []);
    });

    await t.step("bulk accept and dismiss", async () => {
      const [erin, frank] = await Promise.all(["erin", "frank"].map((n) => f.user(n)));
      await dm(erin, "@alice from erin");
      await dm(frank, "@alice from frank");
      const list = await requests(alice);
      const idOf = (u: TestUser) => list.find((r: any) => r.account.id === u.id).id;
      await ok(alice, "POST", "/api/v1/notifications/requests/accept", {
        id: [idOf(erin), idOf(dave)],
      });
      const form = await instance.request("/api/v1/notifications/requests/dismiss", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${alice.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: `id[]=${idOf(frank)}`,
      });
      assert.equal(form.status, 200);
      assert.deepEqual(await form.json(), {});
      assert.deepEqual(await requests(alice), []);
      const senders = new Set((await notes(alice)).map((n) => n.split(":")[1]));
      assert.ok(senders.has("erin") && senders.has("dave") && !senders.has("frank"));
    });

    await t.step("drop: nothing is recorded", async () => {
      await ok(alice, "PATCH", "/api/v2/notifications/policy", { for_private_mentions: "drop" });
      const gina = await f.user("gina");
      await dm(gina, "@alice hello");
      assert.deepEqual(await notes(alice, `?account_id=${gina.id}`), []);
      assert.deepEqual(await requests(alice), []);
      // Accepted senders are never screened.
      const fromBob = await dm(bob, "@alice still fine");
      assert.equal((await notes(alice))[0], `mention:bob:${fromBob.id}`);
    });

    await t.step("for_not_following: strangers' favourites and follows are filtered", async () => {
      await ok(alice, "PATCH", "/api/v2/notifications/policy", {
        for_private_mentions: "filter",
        for_not_following: "filter",
      });
      const [hal, ivy] = await Promise.all(["hal", "ivy"].map((n) => f.user(n)));
      await ok(alice, "POST", `/api/v1/accounts/${ivy.id}/follow`);
      await ok(hal, "POST", `/api/v1/statuses/${mine.id}/favourite`);
      await ok(hal, "POST", `/api/v1/accounts/${alice.id}/follow`);
      const halPublic = await post(hal, "@alice hi there");
      await ok(ivy, "POST", `/api/v1/statuses/${mine.id}/favourite`);
      const visible = await notes(alice);
      assert.ok(!visible.some((n) => n.includes(":hal")), visible.join());
      assert.ok(visible[0].startsWith("favourite:ivy"));
      assert.deepEqual(
        (await notes(alice, `?account_id=${hal.id}`)).map((n) => n.split(":")[0]),
        ["mention", "follow", "favourite"],
      );
      // Only the mention opens a request.
      const [request] = await requests(alice);
      assert.equal(request.account.id, hal.id);
      assert.equal(request.notifications_count, "1");
      assert.equal(request.last_status.id, halPublic.id);
      // Accepting lets all of them through (ungrouped, as in Mastodon).
      await ok(alice, "POST", `/api/v1/notifications/requests/${request.id}/accept`);
      assert.equal((await notes(alice)).filter((n) => n.includes(":hal")).length, 3);
      await ok(alice, "PATCH", "/api/v2/notifications/policy", { for_not_following: "accept" });
    });

    await t.step("for_not_followers (3 days) and for_new_accounts (30 days)", async () => {
      const { db } = f;
      await ok(alice, "PATCH", "/api/v2/notifications/policy", { for_not_followers: "drop" });
      const [jay, kim] = await Promise.all(["jay", "kim"].map((n) => f.user(n)));
      await ok(jay, "POST", `/api/v1/accounts/${alice.id}/follow`);
      await ok(kim, "POST", `/api/v1/accounts/${alice.id}/follow`);
      // Jay has followed for a week; kim only just now (so kim's favourite is dropped).
      await db.update(follows).set({ createdAt: new Date(Date.now() - 7 * 86400_000) })
        .where(eq(follows.accountId, jay.id));
      await ok(jay, "POST", `/api/v1/statuses/${mine.id}/favourite`);
      await ok(kim, "POST", `/api/v1/statuses/${mine.id}/favourite`);
      const favs = (await notes(alice, "?types[]=favourite&include_filtered=true"))
        .map((n) => n.split(":")[1]);
      assert.ok(favs.includes("jay") && !favs.includes("kim"), favs.join());
      // The follows themselves came before the follow was old enough: dropped too.
      assert.deepEqual(await notes(alice, `?account_id=${kim.id}`), []);

      await ok(alice, "PATCH", "/api/v2/notifications/policy", {
        for_not_followers: "accept",
        for_new_accounts: "filter",
      });
      const [lee, mo] = await Promise.all(["lee", "mo"].map((n) => f.user(n)));
      await db.update(accounts).set({ createdAt: new Date(Date.now() - 60 * 86400_000) })
        .where(eq(accounts.id, lee.id));
      const fromLee = await post(lee, "@alice old account");
      const fromMo = await post(mo, "@alice new account");
      const top = await notes(alice);
      assert.equal(top[0], `mention:lee:${fromLee.id}`);
      assert.ok(!top.some((n) => n.includes(fromMo.id)));
      assert.deepEqual((await requests(alice)).map((r: any) => r.account.id), [mo.id]);
      // New but followed: accepted.
      await ok(alice, "POST", `/api/v1/accounts/${mo.id}/follow`);
      const followed = await post(mo, "@alice now followed");
      assert.equal((await notes(alice))[0], `mention:mo:${followed.id}`);
      await ok(alice, "PATCH", "/api/v2/notifications/policy", { for_new_accounts: "accept" });
      const [request] = await requests(alice);
      await ok(alice, "POST", `/api/v1/notifications/requests/${request.id}/dismiss`);
    });

    await t.step("paging with Link headers", async () => {
      const senders = await Promise.all(["n1", "n2", "n3"].map((n) => f.user(n)));
      for (const s of senders) await dm(s, "@alice hi");
      const page = await f.call(alice, "GET", "/api/v1/notifications/requests?limit=2");
      assert.equal(page.status, 200);
      assert.deepEqual(page.body.map((r: any) => r.account.username), ["n3", "n2"]);
      const { next, prev } = links(page.headers.get("link"));
      assert.equal(next.searchParams.get("max_id"), page.body[1].id);
      assert.equal(prev.searchParams.get("min_id"), page.body[0].id);
      assert.equal(next.searchParams.get("limit"), "2");
      const rest = await ok(alice, "GET", next.pathname + next.search);
      assert.deepEqual(rest.map((r: any) => r.account.username), ["n1"]);
      const newer = await ok(alice, "GET", `/api/v1/notifications/requests?min_id=${rest[0].id}`);
      assert.deepEqual(newer.map((r: any) => r.account.username), ["n3", "n2"]);
      assert.deepEqual(await summary(alice), {
        pending_requests_count: 3,
        pending_notifications_count: 3,
      });
      // Blocking a sender hides their request, as it hides their notifications.
      await ok(alice, "POST", `/api/v1/accounts/${senders[0].id}/block`);
      assert.deepEqual((await requests(alice)).map((r: any) => r.account.username), ["n3", "n2"]);
      assert.equal(
        (await f.call(alice, "GET", `/api/v1/notifications/requests/${rest[0].id}`)).status,
        404,
      );
      assert.equal((await summary(alice)).pending_requests_count, 2);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
