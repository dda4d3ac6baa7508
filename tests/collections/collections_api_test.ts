/**
 * Collections over the client API (Mastodon 4.6): create, show, update,
 * delete, the 422 shapes, ownership, lists and paging, in_collections,
 * scopes, and the `/api/v1_alpha` twins. One instance for the file.
 */
import assert from "node:assert/strict";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { call, callJson, links, ok } from "../fixtures/api.ts";
import { createToken, createUser, type TestUser } from "../fixtures/users.ts";

const V1 = "/api/v1/collections";

async function makeCollection(
  instance: TestInstance,
  who: TestUser,
  body: Record<string, unknown>,
) {
  return (await ok(instance, who, "POST", V1, body)).collection;
}

test("collections: the client API", async (t) => {
  const instance = await startInstance();
  try {
    const [alice, bob, carol] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
      createUser(instance, "carol"),
    ]);

    await t.step("create with members, answer shape, show for the owner and others", async () => {
      const created = await ok(instance, alice, "POST", V1, {
        name: "Nice accounts",
        description: "These accounts are <very> nice",
        language: "en",
        tag_name: "#starter",
        account_ids: [bob.id, carol.id],
      });
      const c = created.collection;
      assert.deepEqual(Object.keys(c), [
        "id",
        "account_id",
        "uri",
        "url",
        "name",
        "description",
        "language",
        "local",
        "sensitive",
        "discoverable",
        "tag",
        "item_count",
        "items",
        "created_at",
        "updated_at",
      ]);
      assert.equal(c.account_id, alice.id);
      assert.equal(c.uri, `${instance.origin}/users/alice/collections/${c.id}`);
      assert.equal(c.url, `${instance.origin}/@alice/collections/${c.id}`);
      assert.equal(c.description, "These accounts are <very> nice");
      assert.equal(c.language, "en");
      assert.equal(c.local, true);
      assert.equal(c.sensitive, false);
      assert.equal(c.discoverable, true);
      assert.deepEqual(c.tag, { name: "starter", url: `${instance.origin}/tags/starter` });
      assert.equal(c.item_count, 2);
      assert.deepEqual(c.items.map((i: any) => [i.account_id, i.state]), [
        [bob.id, "accepted"],
        [carol.id, "accepted"],
      ]);
      assert.match(c.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const shown = await ok(instance, null, "GET", `${V1}/${c.id}`);
      assert.deepEqual(Object.keys(shown), ["accounts", "collection"]);
      assert.deepEqual(shown.accounts.map((a: any) => a.id), [alice.id, bob.id, carol.id]);
      assert.deepEqual(shown.collection, c);
      // The viewer's feature approval is filled per viewer.
      const asBob = await ok(instance, bob, "GET", `${V1}/${c.id}`);
      const aliceForBob = asBob.accounts.find((a: any) => a.id === alice.id);
      assert.deepEqual(aliceForBob.feature_approval, {
        automatic: ["public"],
        manual: [],
        current_user: "automatic",
      });
      assert.equal(shown.accounts[0].feature_approval.current_user, "denied");
    });

    await t.step("validation: Mastodon's nested 422", async () => {
      const blank = await callJson(instance, alice, "POST", V1, { name: "" });
      assert.equal(blank.status, 422);
      assert.deepEqual(blank.body, {
        error: {
          error: "Validation failed: Name can't be blank",
          details: { name: [{ error: "ERR_BLANK", description: "can't be blank" }] },
        },
      });
      const long = await callJson(instance, alice, "POST", V1, {
        name: "x".repeat(41),
        description: "y".repeat(101),
        language: "xx",
      });
      assert.equal(long.status, 422);
      assert.deepEqual(Object.keys(long.body.error.details).sort(), [
        "description",
        "language",
        "name",
      ]);
      assert.equal(long.body.error.details.name[0].error, "ERR_TOO_LONG");
      assert.equal(long.body.error.details.language[0].error, "ERR_INCLUSION");
      const many = Array.from({ length: 26 }, () => bob.id);
      // Duplicates count once: 26 copies of one id is one member.
      const dup = await callJson(instance, alice, "POST", V1, { name: "Dup", account_ids: many });
      assert.equal(dup.status, 200);
      assert.equal(dup.body.collection.item_count, 1);
      await ok(instance, alice, "DELETE", `${V1}/${dup.body.collection.id}`);
    });

    await t.step("unknown and unfeatureable members", async () => {
      const unknown = await callJson(instance, alice, "POST", V1, {
        name: "x",
        account_ids: ["999999999999"],
      });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { error: "Record not found" });
      const hidden = await createUser(instance, "hidden", { account: { discoverable: false } });
      const refused = await callJson(instance, alice, "POST", V1, {
        name: "x",
        account_ids: [hidden.id],
      });
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { error: "This action is not allowed" });
    });

    await t.step("update (PATCH and PUT), ownership, the list equals the update", async () => {
      const c = await makeCollection(instance, alice, { name: "Before", tag_name: "one" });
      const patched = await ok(instance, alice, "PATCH", `${V1}/${c.id}`, { name: "After" });
      assert.equal(patched.collection.name, "After");
      assert.equal(patched.collection.tag.name, "one");
      assert.ok(patched.collection.updated_at >= c.updated_at);
      const put = await ok(instance, alice, "PUT", `${V1}/${c.id}`, {
        tag_name: "",
        sensitive: true,
      });
      assert.equal(put.collection.tag, null);
      assert.equal(put.collection.sensitive, true);
      assert.equal(put.collection.name, "After");
      const list = await ok(instance, alice, "GET", `/api/v1/accounts/${alice.id}/collections`);
      assert.deepEqual(list.collections.find((x: any) => x.id === c.id), put.collection);

      const notMine = await callJson(instance, bob, "PATCH", `${V1}/${c.id}`, { name: "Mine" });
      assert.equal(notMine.status, 403);
      const bad = await callJson(instance, alice, "PUT", `${V1}/${c.id}`, { name: " " });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.error.details.name[0].error, "ERR_BLANK");
      assert.equal((await callJson(instance, alice, "PATCH", `${V1}/12345`, {})).status, 404);
      assert.equal((await callJson(instance, alice, "PATCH", `${V1}/abc`, {})).status, 404);

      assert.equal((await callJson(instance, bob, "DELETE", `${V1}/${c.id}`)).status, 403);
      assert.deepEqual(await ok(instance, alice, "DELETE", `${V1}/${c.id}`), {});
      assert.equal((await callJson(instance, null, "GET", `${V1}/${c.id}`)).status, 404);
    });

    await t.step("lists: discoverable for others, everything for the owner, paging", async () => {
      const hiddenOne = await makeCollection(instance, carol, {
        name: "Hidden",
        discoverable: false,
      });
      const shownOnes = [];
      for (const name of ["One", "Two", "Three"]) {
        shownOnes.push(await makeCollection(instance, carol, { name }));
      }
      const path = `/api/v1/accounts/${carol.id}/collections`;
      const others = await ok(instance, null, "GET", path);
      assert.deepEqual(others.collections.map((x: any) => x.name), ["Three", "Two", "One"]);
      const own = await ok(instance, carol, "GET", path);
      assert.deepEqual(own.collections.map((x: any) => x.name), ["Three", "Two", "One", "Hidden"]);
      // Reachable by id all the same.
      assert.equal((await callJson(instance, null, "GET", `${V1}/${hiddenOne.id}`)).status, 200);
      const first = await callJson(instance, null, "GET", `${path}?limit=2`);
      assert.equal(first.body.collections.length, 2);
      const next = links(first.headers.get("link")).next;
      assert.equal(next.searchParams.get("offset"), "2");
      const second = await ok(instance, null, "GET", `${path}?limit=2&offset=2`);
      assert.deepEqual(second.collections.map((x: any) => x.name), ["One"]);
      assert.equal(
        (await callJson(instance, null, "GET", "/api/v1/accounts/999/collections")).status,
        404,
      );
    });

    await t.step("a collection's owner blocking the viewer: 403 to show, empty list", async () => {
      const dave = await createUser(instance, "dave");
      const c = await makeCollection(instance, dave, { name: "Dave's" });
      await ok(instance, dave, "POST", `/api/v1/accounts/${alice.id}/block`);
      const shown = await callJson(instance, alice, "GET", `${V1}/${c.id}`);
      assert.equal(shown.status, 403);
      const list = await ok(instance, alice, "GET", `/api/v1/accounts/${dave.id}/collections`);
      assert.deepEqual(list, { collections: [] });
      // Anonymous readers still see it.
      assert.equal((await callJson(instance, null, "GET", `${V1}/${c.id}`)).status, 200);
    });

    await t.step("in_collections: the caller's own memberships only", async () => {
      const res = await ok(instance, bob, "GET", `/api/v1/accounts/${bob.id}/in_collections`);
      assert.deepEqual(res.collections.map((x: any) => x.name), ["Nice accounts"]);
      const other = await callJson(
        instance,
        bob,
        "GET",
        `/api/v1/accounts/${carol.id}/in_collections`,
      );
      assert.equal(other.status, 403);
      const anonymous = await callJson(
        instance,
        null,
        "GET",
        `/api/v1/accounts/${bob.id}/in_collections`,
      );
      assert.equal(anonymous.status, 401);
    });

    await t.step(
      "scopes: read:collections and write:collections, covered by read and write",
      async () => {
        const reader = await createToken(instance, alice.userId, ["read:collections"]);
        const writer = await createToken(instance, alice.userId, ["write:collections"]);
        const statusesOnly = await createToken(instance, alice.userId, ["read:statuses"]);
        assert.equal((await callJson(instance, reader, "POST", V1, { name: "x" })).status, 403);
        const made = await callJson(instance, writer, "POST", V1, { name: "By scope" });
        assert.equal(made.status, 200);
        const id = made.body.collection.id;
        assert.equal((await callJson(instance, reader, "GET", `${V1}/${id}`)).status, 200);
        // A token on a public route must carry the scope (authorize_if_got_token!).
        assert.equal((await callJson(instance, statusesOnly, "GET", `${V1}/${id}`)).status, 403);
        await ok(instance, alice, "DELETE", `${V1}/${id}`);
      },
    );

    await t.step("the /api/v1_alpha twins answer alike, with a Deprecation header", async () => {
      const made = await call(instance, alice, "POST", "/api/v1_alpha/collections", { name: "α" });
      assert.equal(made.status, 200);
      assert.equal(made.headers.get("deprecation"), "@1781049600");
      const { collection } = await made.json();
      const alpha = await call(instance, null, "GET", `/api/v1_alpha/collections/${collection.id}`);
      assert.equal(alpha.headers.get("deprecation"), "@1781049600");
      const v1 = await call(instance, null, "GET", `${V1}/${collection.id}`);
      assert.equal(v1.headers.get("deprecation"), null);
      assert.deepEqual(await alpha.json(), await v1.json());
      const refused = await call(
        instance,
        null,
        "DELETE",
        `/api/v1_alpha/collections/${collection.id}`,
      );
      assert.equal(refused.status, 401);
      assert.equal(refused.headers.get("deprecation"), "@1781049600");
      await ok(instance, alice, "DELETE", `/api/v1_alpha/collections/${collection.id}`);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
