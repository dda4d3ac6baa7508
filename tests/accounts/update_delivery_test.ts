/**
 * A profile change reaches followers' servers: B follows A's account (rows
 * inserted directly: B's actor stored on A, and a follows row), A's user
 * changes the display name, and B's shared inbox receives a signed
 * Update whose object is A's actor with the new name.
 */
import assert from "node:assert/strict";
import { newId } from "../../db/ids.ts";
import { follows } from "../../db/schema/mod.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { startInstance, test } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";
import { createAccount } from "../federation/helpers.ts";
import { localUser, updateCredentials } from "./helpers.ts";

interface Delivery {
  path: string;
  signature: string | null;
  body: any;
}

test("update_credentials sends a signed Update(Person) to followers' shared inboxes", async () => {
  const deliveries: Delivery[] = [];
  const b = await startInstance({
    tls: true,
    onRequest: (request) => {
      if (request.method !== "POST") return;
      const copy = request.clone();
      copy.text().then((text) => {
        deliveries.push({
          path: new URL(copy.url).pathname,
          signature: copy.headers.get("signature") ?? copy.headers.get("signature-input"),
          body: JSON.parse(text),
        });
      }).catch(() => {});
    },
  });
  const a = await startInstance({ tls: true });
  try {
    await createAccount(b, "bob");
    const alice = await localUser(a, "alice");
    const bobOnA = await resolveRemoteAccount(a.rookery.ctx, `bob@${b.domain}`);
    assert.ok(bobOnA, "A stored B's actor");
    assert.equal(bobOnA.sharedInboxUrl, `${b.origin}/inbox`);
    await a.rookery.ctx.database.db.insert(follows).values({
      id: newId(),
      accountId: bobOnA.id,
      targetAccountId: alice.account.id,
    });

    const res = await updateCredentials(a, alice.token, { display_name: "Alice Updated" });
    assert.equal(res.status, 200, await res.text());

    const update = await eventually("B to receive an Update", () => {
      const found = deliveries.find((d) => d.body?.type === "Update");
      if (!found) throw new Error(`saw ${JSON.stringify(deliveries.map((d) => d.path))}`);
      return Promise.resolve(found);
    });
    assert.equal(update.path, "/inbox", "delivered to the shared inbox");
    assert.ok(update.signature, "the delivery is signed");
    assert.equal(update.body.actor, `${a.origin}/users/alice`);
    assert.match(update.body.id, new RegExp(`^${a.origin}/users/alice#updates/\\d+$`));
    // Mastodon's shape: a list, and the public collection in full (federation/objects/wire_shape.ts).
    assert.deepEqual(update.body.to, ["https://www.w3.org/ns/activitystreams#Public"]);
    const object = update.body.object;
    assert.equal(object.type, "Person");
    assert.equal(object.id, `${a.origin}/users/alice`);
    assert.equal(object.name, "Alice Updated");
  } finally {
    await a.close({ destroy: true });
    await b.close({ destroy: true });
  }
});
