/**
 * A notification request follows what it holds, as Mastodon's
 * NotificationRequest#reconsider_existence!: when filtered notifications go
 * another way than accept or dismiss — their status deleted, one dismissed
 * (v1 or v2), all cleared, the sender blocked — the request is recounted, its
 * last status is the newest still held, and it disappears with the last one.
 * Someone else's notification id dismisses nothing.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { fixtures, type TestUser } from "../notifications/helpers.ts";

test("notification requests are recounted when what they hold goes", async (t) => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const [alice, carol] = await Promise.all(["alice", "carol"].map((n) => f.user(n)));
    const { ok, post } = f;
    const dm = (who: TestUser, status: string) => post(who, status, { visibility: "direct" });
    /** The request from `sender` as `count:last status id`, or null when there is none. */
    const request = async (sender: TestUser): Promise<string | null> => {
      const found = (await ok(alice, "GET", "/api/v1/notifications/requests"))
        .find((r: any) => r.account.id === sender.id);
      return found ? `${found.notifications_count}:${found.last_status?.id}` : null;
    };
    const held = async (sender: TestUser): Promise<any[]> =>
      await ok(alice, "GET", `/api/v1/notifications?account_id=${sender.id}`);
    const summary = async () => (await ok(alice, "GET", "/api/v2/notifications/policy")).summary;

    await t.step("a deleted status leaves its request", async () => {
      const bob = await f.user("bob");
      const first = await dm(bob, "@alice one");
      const second = await dm(bob, "@alice two");
      assert.equal(await request(bob), `2:${second.id}`);
      await ok(bob, "DELETE", `/api/v1/statuses/${second.id}`);
      assert.equal(await request(bob), `1:${first.id}`, "recounted, last status moved back");
      assert.deepEqual(await summary(), {
        pending_requests_count: 1,
        pending_notifications_count: 1,
      });
      const id = (await ok(alice, "GET", "/api/v1/notifications/requests"))[0].id;
      await ok(bob, "DELETE", `/api/v1/statuses/${first.id}`);
      assert.equal(await request(bob), null, "nothing left: the request is gone");
      assert.equal(
        (await f.call(alice, "GET", `/api/v1/notifications/requests/${id}`)).status,
        404,
      );
      assert.deepEqual(await summary(), {
        pending_requests_count: 0,
        pending_notifications_count: 0,
      });
      // A status without filtered notifications changes nothing.
      const dan = await f.user("dan");
      await dm(dan, "@alice hi");
      const plain = await post(alice, "mine");
      await ok(alice, "DELETE", `/api/v1/statuses/${plain.id}`);
      assert.ok((await request(dan))?.startsWith("1:"));
    });

    await t.step("dismissing one notification (v1, then v2) recounts", async () => {
      const hal = await f.user("hal");
      const first = await dm(hal, "@alice one");
      const second = await dm(hal, "@alice two");
      const [newest, oldest] = await held(hal);
      assert.equal(newest.status.id, second.id);
      // Someone else's id: 404, nothing changes.
      assert.equal(
        (await f.call(carol, "POST", `/api/v1/notifications/${newest.id}/dismiss`)).status,
        404,
      );
      await ok(carol, "POST", `/api/v2/notifications/ungrouped-${newest.id}/dismiss`);
      assert.equal(await request(hal), `2:${second.id}`);

      await ok(alice, "POST", `/api/v1/notifications/${newest.id}/dismiss`);
      assert.equal(await request(hal), `1:${first.id}`);
      await ok(alice, "POST", `/api/v2/notifications/ungrouped-${oldest.id}/dismiss`);
      assert.equal(await request(hal), null);
      // An accepted (unfiltered) notification going changes no request.
      const ivy = await f.user("ivy");
      await dm(ivy, "@alice one");
      const fav = await post(alice, "like me");
      await ok(ivy, "POST", `/api/v1/statuses/${fav.id}/favourite`);
      const favourite = (await held(ivy)).find((n: any) => n.type === "favourite");
      await ok(alice, "POST", `/api/v1/notifications/${favourite.id}/dismiss`);
      assert.ok((await request(ivy))?.startsWith("1:"));
    });

    await t.step("blocking the sender removes the request and what it held", async () => {
      const jay = await f.user("jay");
      await dm(jay, "@alice hello");
      assert.ok(await request(jay));
      await ok(alice, "POST", `/api/v1/accounts/${jay.id}/block`);
      await ok(alice, "POST", `/api/v1/accounts/${jay.id}/unblock`);
      assert.equal(await request(jay), null, "unblocking brings nothing back");
      assert.deepEqual(await held(jay), []);
      // Being blocked by the recipient's correspondent changes nothing for the recipient.
      const kim = await f.user("kim");
      await dm(kim, "@alice hello");
      await ok(kim, "POST", `/api/v1/accounts/${alice.id}/block`);
      assert.ok((await request(kim))?.startsWith("1:"));
    });

    await t.step("clearing all notifications leaves no pending request", async () => {
      assert.ok((await summary()).pending_requests_count > 0);
      await ok(alice, "POST", "/api/v1/notifications/clear");
      assert.deepEqual(await ok(alice, "GET", "/api/v1/notifications/requests"), []);
      assert.deepEqual(await summary(), {
        pending_requests_count: 0,
        pending_notifications_count: 0,
      });
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
