/**
 * The inbox's fast path (federation/inbox/fast_path.ts): plainly shaped
 * deliveries are queued without Fedify's handling of the request, and what
 * that handling decided still holds. A personal inbox without a live owner
 * is not found; the activities of one sender are applied in order; an
 * activity JSON-LD cannot read is answered 202, as Mastodon does, and
 * dropped without holding its sender's later ones.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("plainly shaped deliveries: recipients checked, order kept, unreadable ones dropped", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const actor = peer.publishActor("plain", { followers: `${peer.origin}/users/plain/followers` });
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (inbox: string, activity: Record<string, unknown>) => {
    const body = { "@context": AS, actor, ...activity };
    return await statusOf(await peer.deliver(inbox, body, { keyId: `${actor}#main-key`, send }));
  };
  const note = (id: string) => ({
    id,
    type: "Note",
    attributedTo: actor,
    to: [PUBLIC],
    content: `<p>${id}</p>`,
    published: new Date().toISOString(),
  });
  const create = (id: string, extra: Record<string, unknown> = {}) => ({
    id: `${id}/activity`,
    type: "Create",
    to: [PUBLIC],
    object: note(id),
    ...extra,
  });
  await createUser(rookery, "alice");
  try {
    await t.step("a personal inbox without an account is not found", async () => {
      const id = `${actor}/notes/nobody`;
      assert.equal(await deliver(`${rookery.origin}/users/nobody/inbox`, create(id)), 404);
      const first = `${actor}/notes/first`;
      assert.equal(await deliver(`${rookery.origin}/users/alice/inbox`, create(first)), 202);
      await eventually("the note to alice's inbox", () => storedStatus(rookery, first));
      assert.equal(await storedStatus(rookery, id), undefined);
    });

    await t.step("an unreadable activity is accepted, dropped, and holds nothing up", async () => {
      const broken = `${actor}/notes/broken`;
      // A date JSON-LD's reader refuses: Fedify's request used to answer 400.
      const status = await deliver(
        `${rookery.origin}/inbox`,
        create(broken, {
          published: "yesterday at noon",
        }),
      );
      assert.equal(status, 202);
      const after = `${actor}/notes/after`;
      assert.equal(await deliver(`${rookery.origin}/inbox`, create(after)), 202);
      await eventually("the sender's next note", () => storedStatus(rookery, after));
      assert.equal(await storedStatus(rookery, broken), undefined);
    });

    await t.step("one sender's Create and Delete, sent at once, end deleted", async () => {
      const id = `${actor}/notes/raced`;
      const remove = { id: `${id}#delete`, type: "Delete", to: [PUBLIC], object: id };
      const inbox = `${rookery.origin}/inbox`;
      const [a, b] = await Promise.all([deliver(inbox, create(id)), deliver(inbox, remove)]);
      assert.deepEqual([a, b], [202, 202]);
      const marker = `${actor}/notes/marker`;
      assert.equal(await deliver(inbox, create(marker)), 202);
      await eventually("the marker", () => storedStatus(rookery, marker));
      const row = await storedStatus(rookery, id);
      assert.ok(!row || row.deletedAt != null, "the raced note is not shown");
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
