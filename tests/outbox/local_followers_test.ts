/**
 * Local followers are local: nothing a local account sends is POSTed over
 * HTTP to our own inboxes. A's alice has a local follower (lou) and a remote
 * one (bob on B). A profile update, a post and an activity addressed to
 * "followers" (as Move and forwarded replies are) reach B's inbox, and A's
 * own inboxes receive nothing; an activity addressed to a local inbox
 * directly is dropped by the queue.
 */
import assert from "node:assert/strict";
import { Update } from "@fedify/vocab";
import { newId } from "../../db/ids.ts";
import { follows } from "../../db/schema/mod.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { instanceContext } from "../../federation/fetch/lookup.ts";
import { startInstance, test } from "../harness.ts";
import { createAccount } from "../federation/helpers.ts";
import { createUser } from "../fixtures/users.ts";
import { ok } from "../fixtures/api.ts";
import { eventually } from "../fixtures/wait.ts";

interface Seen {
  path: string;
  type: string;
  id: string;
}

/** Records the activities POSTed to `seen` (inbox paths only). */
function inboxRecorder(seen: Seen[]) {
  return (request: Request) => {
    if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/inbox")) return;
    const copy = request.clone();
    copy.json().then((body) => {
      seen.push({ path: new URL(copy.url).pathname, type: body?.type, id: body?.id });
    }).catch(() => {});
  };
}

test("activities of local accounts are never POSTed to our own inboxes", async (t) => {
  const onA: Seen[] = [];
  const onB: Seen[] = [];
  const b = await startInstance({ tls: true, onRequest: inboxRecorder(onB) });
  const a = await startInstance({ tls: true, onRequest: inboxRecorder(onA) });
  try {
    const db = a.rookery.ctx.database.db;
    await createAccount(b, "bob");
    const alice = await createUser(a, "alice");
    const lou = await createUser(a, "lou");
    const bobOnA = await resolveRemoteAccount(a.rookery.ctx, `bob@${b.domain}`);
    assert.ok(bobOnA, "A stored B's actor");
    await db.insert(follows).values([
      { id: newId(), accountId: bobOnA.id, targetAccountId: alice.id },
      { id: newId(), accountId: lou.id, targetAccountId: alice.id },
    ]);
    const arrivedOnB = (type: string, id?: string) =>
      eventually(
        `${type} on B`,
        () => Promise.resolve(onB.find((s) => s.type === type && (!id || s.id === id))),
      );

    await t.step("a profile update", async () => {
      await ok(a, alice, "PATCH", "/api/v1/accounts/update_credentials", {
        display_name: "Alice, updated",
      });
      await arrivedOnB("Update");
    });

    await t.step("a public post", async () => {
      await ok(a, alice, "POST", "/api/v1/statuses", { status: "Hello, followers" });
      await arrivedOnB("Create");
    });

    await t.step('an activity for "followers" (Move, forwarded replies)', async () => {
      const fedCtx = instanceContext(a.rookery.ctx);
      const actor = fedCtx.getActorUri("alice");
      const id = new URL(`${actor.href}#updates/followers-test`);
      await fedCtx.sendActivity(
        { identifier: "alice" },
        "followers",
        new Update({ id, actor, object: actor, to: fedCtx.getFollowersUri("alice") }),
        { preferSharedInbox: true },
      );
      await arrivedOnB("Update", id.href);
    });

    await t.step("an activity addressed to a local inbox is dropped by the queue", async () => {
      const fedCtx = instanceContext(a.rookery.ctx);
      const actor = fedCtx.getActorUri("alice");
      const local = new URL(`${actor.href}#updates/to-lou`);
      const remote = new URL(`${actor.href}#updates/to-bob`);
      const send = (id: URL, recipient: { id: URL; inboxId: URL }) =>
        fedCtx.sendActivity(
          { identifier: "alice" },
          recipient,
          new Update({ id, actor, object: actor }),
          // One ordering key: the local one is handled before the remote one arrives.
          { orderingKey: "local-followers-test" },
        );
      await send(local, {
        id: new URL(`${a.origin}/users/lou`),
        inboxId: new URL(`${a.origin}/users/lou/inbox`),
      });
      await send(remote, { id: new URL(bobOnA.uri), inboxId: new URL(bobOnA.inboxUrl!) });
      await arrivedOnB("Update", remote.href);
    });

    // Everything above reached B; A's own inboxes heard nothing of it.
    assert.deepEqual(onA, [], JSON.stringify(onA));
  } finally {
    await a.close({ destroy: true });
    await b.close({ destroy: true });
  }
});
