import assert from "node:assert/strict";
import type { Recipient } from "@fedify/vocab";
import { newId } from "../../db/ids.ts";
import { accounts, follows } from "../../db/schema/mod.ts";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { AP_ACCEPT, createAccount } from "./helpers.ts";

async function remoteAccounts(a: TestInstance, count: number) {
  const { db } = a.rookery.ctx.database;
  const rows = Array.from({ length: count }, (_, i) => ({
    id: newId(),
    username: `fan${i}`,
    domain: "elsewhere.example",
    uri: `https://elsewhere.example/users/fan${i}`,
    inboxUrl: `https://elsewhere.example/users/fan${i}/inbox`,
    sharedInboxUrl: "https://elsewhere.example/inbox",
  }));
  return await db.insert(accounts).values(rows).returning();
}

const get = async (a: TestInstance, url: string) => {
  const res = await a.request(url, { headers: { Accept: AP_ACCEPT } });
  assert.equal(res.status, 200, url);
  return await json(res);
};

test("followers and following: real totals, cursor pages, newest first", async () => {
  const a = await startInstance();
  try {
    const { db } = a.rookery.ctx.database;
    const { account: alice } = await createAccount(a, "alice");
    const fans = await remoteAccounts(a, 45);
    // Followed one after the other: later follows have larger ids.
    for (const fan of fans) {
      await db.insert(follows).values({
        id: newId(),
        accountId: fan.id,
        targetAccountId: alice.id,
      });
    }
    await db.insert(follows).values({
      id: newId(),
      accountId: alice.id,
      targetAccountId: fans[0].id,
    });

    const collection = await get(a, "/users/alice/followers");
    assert.equal(collection.type, "OrderedCollection");
    assert.equal(collection.id, `${a.origin}/users/alice/followers`);
    assert.equal(collection.totalItems, 45);
    const page1 = await get(a, collection.first);
    assert.equal(page1.type, "OrderedCollectionPage");
    assert.equal(page1.orderedItems.length, 40);
    assert.equal(page1.orderedItems[0], "https://elsewhere.example/users/fan44");
    assert.equal(page1.orderedItems[39], "https://elsewhere.example/users/fan5");
    const page2 = await get(a, page1.next);
    assert.deepEqual(
      page2.orderedItems,
      [4, 3, 2, 1, 0].map((i) => `https://elsewhere.example/users/fan${i}`),
    );
    assert.equal(page2.next, undefined);

    const following = await get(a, "/users/alice/following");
    assert.equal(following.totalItems, 1);
    const fpage = await get(a, following.first);
    assert.deepEqual(fpage.orderedItems, ["https://elsewhere.example/users/fan0"]);

    const bad = await a.request("/users/alice/followers?cursor=nonsense", {
      headers: { Accept: AP_ACCEPT },
    });
    await bad.body?.cancel();
    assert.equal(bad.status, 404);
  } finally {
    await a.close({ destroy: true });
  }
});

test("hidden collections show only totalItems; delivery still sees every follower", async () => {
  const a = await startInstance();
  try {
    const { db } = a.rookery.ctx.database;
    const { account: shy } = await createAccount(a, "shy", { hideCollections: true });
    const fans = await remoteAccounts(a, 3);
    for (const fan of fans) {
      await db.insert(follows).values({ id: newId(), accountId: fan.id, targetAccountId: shy.id });
    }
    const followers = await get(a, "/users/shy/followers");
    assert.equal(followers.totalItems, 3);
    assert.equal(followers.first, undefined);
    assert.equal(followers.orderedItems, undefined);
    const page = await get(a, "/users/shy/followers?cursor=first");
    assert.equal(page.orderedItems, undefined);
    const following = await get(a, "/users/shy/following");
    assert.equal(following.totalItems, 0);

    // sendActivity(…, "followers") enumerates through Fedify's internal
    // getFollowers(), outside any GET of the collection: hiding must not apply.
    const ctx = a.rookery.ctx.federation.createContext(new URL(a.origin), a.rookery.ctx);
    const internal = ctx as unknown as { getFollowers(id: string): AsyncIterable<Recipient> };
    const recipients = [];
    for await (const r of internal.getFollowers("shy")) recipients.push(r);
    assert.deepEqual(
      recipients.map((r) => [r.id?.href, r.inboxId?.href, r.endpoints?.sharedInbox?.href]).sort(),
      fans.map((f) => [f.uri, f.inboxUrl, f.sharedInboxUrl]).sort(),
    );
  } finally {
    await a.close({ destroy: true });
  }
});

test("outbox reports statuses_count; featured collections exist and start empty", async () => {
  const a = await startInstance();
  try {
    await createAccount(a, "alice", { statusesCount: 7 });
    const outbox = await get(a, "/users/alice/outbox");
    assert.equal(outbox.type, "OrderedCollection");
    assert.equal(outbox.totalItems, 7);
    const page = await get(a, outbox.first);
    assert.equal(page.type, "OrderedCollectionPage");
    const featured = await get(a, "/users/alice/collections/featured");
    assert.equal(featured.id, `${a.origin}/users/alice/collections/featured`);
    assert.equal(featured.totalItems, 0);
    const tags = await get(a, "/users/alice/collections/tags");
    assert.equal(tags.id, `${a.origin}/users/alice/collections/tags`);
    assert.equal(tags.totalItems, 0);
  } finally {
    await a.close({ destroy: true });
  }
});
