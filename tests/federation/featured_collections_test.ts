/**
 * Collections (FEP-7aa9, Mastodon 4.6) between two Rookery instances over
 * signed HTTP, A in authorized-fetch mode: a remote member asked and
 * accepting, the copies on the follower's server (items verified by
 * fetching their stamps), refusals by policy before anything is sent, an
 * update, a post linking the collection (its `tagged_collections`, here and
 * on B), a member revoking its consent, a report naming the collection, a
 * deletion, a collection found on first sight of its owner, and the
 * documents refused to unsigned readers.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { collectionItems, reports } from "../../db/schema/mod.ts";
import { test, type TestInstance } from "../harness.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { arrived, closeAll, followRemote, remoteId, startPair } from "../fixtures/federation.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { AP_ACCEPT } from "./helpers.ts";

const WAIT = 60_000;

/** The collections of account `id` as `viewer` on `on` lists them. */
async function collectionsOf(on: TestInstance, viewer: TestUser, id: string) {
  return (await ok(on, viewer, "GET", `/api/v1/accounts/${id}/collections`)).collections;
}

/** The notification types `user` has on `on`. */
async function notificationTypes(on: TestInstance, user: TestUser): Promise<string[]> {
  return (await ok(on, user, "GET", "/api/v1/notifications")).map((n: { type: string }) => n.type);
}

test("collections federate between two instances (FEP-7aa9)", async (t) => {
  const requests: { path: string; signed: boolean }[] = [];
  const { a, b } = await startPair({
    a: {
      env: { AUTHORIZED_FETCH: "true" },
      onRequest: (request) => {
        if (request.method !== "GET") return;
        requests.push({
          path: new URL(request.url).pathname,
          signed: request.headers.has("signature") || request.headers.has("signature-input"),
        });
      },
    },
  });
  try {
    const discoverable = { account: { discoverable: true } };
    const [alice, lena, amy] = await Promise.all(
      ["alice", "lena", "amy"].map((name) => createUser(a, name, discoverable)),
    );
    const [bella, bob] = await Promise.all(
      ["bella", "bob"].map((name) => createUser(b, name, discoverable)),
    );
    const carla = await createUser(b, "carla", { account: { discoverable: true, locked: true } });
    const dora = await createUser(b, "dora", { account: { discoverable: false } });
    const aliceOnB = await followRemote(b, bob, a, alice);
    const bellaOnA = await remoteId(a, b, bella);
    let collection: { id: string; uri: string } = { id: "", uri: "" };
    let bellaItemOnA = "";

    await t.step("a remote member is asked, accepts, and both sides show it", async () => {
      const created = (await ok(a, alice, "POST", "/api/v1/collections", {
        name: "Nice accounts",
        description: "Nice <people>",
        language: "en",
        tag_name: "starter",
        account_ids: [lena.id, bellaOnA],
      })).collection;
      collection = { id: created.id, uri: created.uri };
      const states = Object.fromEntries(
        created.items.map((i: { account_id: string; state: string }) => [i.account_id, i.state]),
      );
      assert.deepEqual(states, { [lena.id]: "accepted", [bellaOnA]: "pending" });
      bellaItemOnA = created.items.find((i: { account_id: string }) =>
        i.account_id === bellaOnA
      ).id;

      await eventually(
        "bella told on B",
        async () => (await notificationTypes(b, bella)).includes("added_to_collection"),
        WAIT,
      );
      const accepted = await eventually("bella accepted on A", async () => {
        const shown = (await ok(a, alice, "GET", `/api/v1/collections/${collection.id}`))
          .collection;
        return shown.items.find((i: { id: string; state: string }) =>
          i.id === bellaItemOnA && i.state === "accepted"
        );
      }, WAIT);
      assert.equal(accepted.account_id, bellaOnA);
      const [row] = await a.rookery.ctx.database.db.select().from(collectionItems)
        .where(eq(collectionItems.id, bellaItemOnA));
      assert.match(
        row.approvalUri ?? "",
        new RegExp(`^${b.origin}/users/bella/feature_authorizations/\\d+$`),
      );

      // B's copy, as alice's follower sees it: both members, verified.
      const lenaOnB = await remoteId(b, a, lena);
      const copy = await eventually("the copy on B with both members", async () => {
        const [c] = await collectionsOf(b, bob, aliceOnB);
        const members = (c?.items ?? []).filter((i: { state: string }) => i.state === "accepted")
          .map((i: { account_id: string }) => i.account_id).sort();
        return JSON.stringify(members) === JSON.stringify([bella.id, lenaOnB].sort()) && c;
      }, WAIT);
      assert.equal(copy.uri, collection.uri);
      assert.equal(copy.url, `${a.origin}/@alice/collections/${collection.id}`);
      assert.equal(copy.local, false);
      assert.equal(copy.name, "Nice accounts");
      assert.equal(copy.description, "Nice &lt;people&gt;");
      assert.equal(copy.language, "en");
      assert.equal(copy.tag.name, "starter");
      // B fetched lena's stamp from A, signed (A answers only signed fetches).
      const stampFetches = requests.filter((r) =>
        r.path.startsWith("/users/lena/feature_authorizations/")
      );
      assert.ok(
        stampFetches.length >= 1 && stampFetches.every((r) => r.signed),
        JSON.stringify(stampFetches),
      );
      // Bella's stamp on B names the collection and her.
      const stamp = await (await fetch(row.approvalUri!, { headers: { Accept: AP_ACCEPT } }))
        .json();
      assert.equal(stamp.type, "FeatureAuthorization");
      assert.equal(stamp.interactingObject, collection.uri);
      assert.equal(stamp.interactionTarget, `${b.origin}/users/bella`);
    });

    await t.step("accounts whose policy refuses are refused before anything is sent", async () => {
      const carlaOnA = await remoteId(a, b, carla);
      const doraOnA = await remoteId(a, b, dora);
      // Their servers' canFeature, as A read it from their actors.
      const policy = async (id: string) => {
        const { automatic, manual } = (await ok(a, alice, "GET", `/api/v1/accounts/${id}`))
          .feature_approval;
        return { automatic, manual };
      };
      assert.deepEqual(await policy(carlaOnA), { automatic: ["followers"], manual: [] });
      assert.deepEqual(await policy(doraOnA), { automatic: [], manual: [] });
      assert.deepEqual(await policy(bellaOnA), { automatic: ["public"], manual: [] });
      for (const member of [carlaOnA, doraOnA]) {
        const res = await callJson(a, alice, "POST", `/api/v1/collections/${collection.id}/items`, {
          account_id: member,
        });
        assert.equal(res.status, 403, JSON.stringify(res.body));
      }
      const res = await callJson(a, alice, "POST", "/api/v1/collections", {
        name: "Never",
        account_ids: [carlaOnA],
      });
      assert.equal(res.status, 403);
    });

    await t.step("an update reaches B; a local member is told", async () => {
      await ok(a, alice, "PATCH", `/api/v1/collections/${collection.id}`, {
        name: "Nicer accounts",
      });
      await eventually(
        "the copy renamed on B",
        async () => (await collectionsOf(b, bob, aliceOnB))[0]?.name === "Nicer accounts",
        WAIT,
      );
      assert.ok((await notificationTypes(a, lena)).includes("collection_update"));
    });

    await t.step("a post linking the collection's page tags it, here and on B", async () => {
      const page = `${a.origin}/@alice/collections/${collection.id}`;
      const posted = await postStatus(a, alice, `Who to follow: ${page}`);
      assert.deepEqual(posted.tagged_collections.map((c: { id: string }) => c.id), [collection.id]);
      assert.equal(posted.tagged_collections[0].url, page);
      const plain = await postStatus(a, alice, `Not this one: ${a.origin}/@amy/collections/1`);
      assert.deepEqual(plain.tagged_collections, []);

      // B's copy of the post names B's copy of the collection.
      const row = await arrived(b, posted.uri);
      const onB = await eventually("the post tagged on B", async () => {
        const s = await ok(b, bob, "GET", `/api/v1/statuses/${row.id}`);
        return s.tagged_collections.length > 0 && s;
      }, WAIT);
      const [copy] = await collectionsOf(b, bob, aliceOnB);
      assert.deepEqual(onB.tagged_collections, [copy]);

      // An edit without the link untags it, on both sides.
      const edited = await ok(a, alice, "PUT", `/api/v1/statuses/${posted.id}`, {
        status: "Who to follow: ask me",
      });
      assert.deepEqual(edited.tagged_collections, []);
      await eventually("the post untagged on B", async () => {
        const s = await ok(b, bob, "GET", `/api/v1/statuses/${row.id}`);
        return s.tagged_collections.length === 0;
      }, WAIT);
    });

    await t.step("the remote member revokes its consent from its own server", async () => {
      const [copy] = (await ok(b, bella, "GET", `/api/v1/accounts/${bella.id}/in_collections`))
        .collections;
      assert.equal(copy.uri, collection.uri);
      const mine = copy.items.find((i: { account_id: string }) => i.account_id === bella.id);
      await ok(b, bella, "POST", `/api/v1/collections/${copy.id}/items/${mine.id}/revoke`);
      await eventually("bella revoked on A", async () => {
        const [row] = await a.rookery.ctx.database.db.select().from(collectionItems)
          .where(and(eq(collectionItems.id, bellaItemOnA), eq(collectionItems.state, "revoked")));
        return row;
      }, WAIT);
      const shown = (await ok(a, alice, "GET", `/api/v1/collections/${collection.id}`)).collection;
      assert.ok(!shown.items.some((i: { id: string }) => i.id === bellaItemOnA));
      // Her stamp is gone from B, which is how any other server learns of it.
      const stampRes = await fetch(`${b.origin}/users/bella/feature_authorizations/${mine.id}`, {
        headers: { Accept: AP_ACCEPT },
      });
      await stampRes.body?.cancel();
      assert.equal(stampRes.status, 404);
      await eventually("bella gone from bob's view on B", async () => {
        const [c] = await collectionsOf(b, bob, aliceOnB);
        return c && !c.items.some((i: { account_id: string }) => i.account_id === bella.id);
      }, WAIT);
    });

    await t.step("a report names the collection, and is forwarded with it", async () => {
      const [copy] = await collectionsOf(b, bob, aliceOnB);
      const refused = await callJson(b, bob, "POST", "/api/v1/reports", {
        account_id: aliceOnB,
        collection_ids: ["123"],
      });
      assert.equal(refused.status, 422);
      assert.equal(
        refused.body.error,
        "Validation failed: Collection ids does not reference collections of the account",
      );
      const filed = await ok(b, bob, "POST", "/api/v1/reports", {
        account_id: aliceOnB,
        collection_ids: [copy.id],
        comment: "not nice",
        forward: true,
      });
      assert.deepEqual(filed.collection_ids, [copy.id]);
      const received = await eventually("the Flag on A", async () => {
        const [row] = await a.rookery.ctx.database.db.select().from(reports)
          .where(eq(reports.targetAccountId, alice.id));
        return row;
      }, WAIT);
      assert.deepEqual(received.collectionIds, [collection.id]);
      assert.equal(received.comment, "not nice");
    });

    await t.step("a deletion removes the copy on B", async () => {
      const [copy] = await collectionsOf(b, bob, aliceOnB);
      await ok(a, alice, "DELETE", `/api/v1/collections/${collection.id}`);
      await eventually("the copy gone on B", async () => {
        const res = await call(b, bob, "GET", `/api/v1/collections/${copy.id}`);
        await res.body?.cancel();
        return res.status === 404;
      }, WAIT);
    });

    await t.step("an owner seen for the first time brings its collections", async () => {
      const created = (await ok(a, amy, "POST", "/api/v1/collections", {
        name: "Amy's picks",
        account_ids: [lena.id],
      })).collection;
      const amyOnB = await remoteId(b, a, amy);
      const lenaOnB = await remoteId(b, a, lena);
      const copy = await eventually("amy's collection on B", async () => {
        const [c] = await collectionsOf(b, bob, amyOnB);
        return c?.items.some((i: { account_id: string; state: string }) =>
          i.account_id === lenaOnB && i.state === "accepted"
        ) && c;
      }, WAIT);
      assert.equal(copy.uri, created.uri);
      assert.ok(requests.some((r) => r.path === "/users/amy/featured_collections" && r.signed));

      // Authorized fetch: unsigned readers get 401 for every document.
      for (
        const path of [
          `/users/amy/collections/${created.id}`,
          "/users/amy/featured_collections",
          "/users/amy/featured_collections?page=1",
          `/users/lena/feature_authorizations/${created.items[0].id}`,
        ]
      ) {
        const res = await a.request(path, { headers: { Accept: AP_ACCEPT } });
        await res.body?.cancel();
        assert.equal(res.status, 401, path);
      }
    });
  } finally {
    await closeAll(a, b);
  }
});
