/**
 * Lenient where Rails is lenient: a scalar where Mastodon permits a hash
 * (`fields_attributes=undefined`, as one client library sends for an unset
 * option; `source=x`, `poll=x`, `home=x`, `keywords_attributes=x`) is
 * dropped as Rails' strong parameters drop it, not refused with a 422.
 * What the hashes carry is still validated when they are hashes.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

test("a scalar in place of an optional hash is ignored, not a 422", async (t) => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice", {
      scopes: ["read", "write", "follow", "profile"],
    });
    const form = (method: string, path: string, body: string) =>
      instance.request(path, {
        method,
        headers: {
          authorization: `Bearer ${alice.token}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body,
      });
    const UPDATE = "/api/v1/accounts/update_credentials";

    await t.step("update_credentials: fields_attributes and source", async () => {
      const set = await form(
        "PATCH",
        UPDATE,
        "fields_attributes[0][name]=Site&fields_attributes[0][value]=here",
      );
      assert.equal(set.status, 200, await set.text());
      const res = await form(
        "PATCH",
        UPDATE,
        "display_name=Alice&fields_attributes=undefined&source=undefined",
      );
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.display_name, "Alice");
      assert.deepEqual(
        body.fields.map((f: any) => f.name),
        ["Site"],
        "the fields stay as they were",
      );
      const viaJson = await callJson(instance, alice, "PATCH", UPDATE, {
        note: "hi",
        fields_attributes: "undefined",
        source: 5,
      });
      assert.equal(viaJson.status, 200, JSON.stringify(viaJson.body));
      assert.deepEqual(viaJson.body.fields.map((f: any) => f.name), ["Site"]);
      // Items that are not hashes are dropped too; the hash items still count.
      const mixed = await callJson(instance, alice, "PATCH", UPDATE, {
        fields_attributes: ["x", { name: "Pronouns", value: "she/her" }],
      });
      assert.equal(mixed.status, 200, JSON.stringify(mixed.body));
      assert.deepEqual(mixed.body.fields.map((f: any) => f.name), ["Pronouns"]);
      // A hash is still validated.
      const bad = await form("PATCH", UPDATE, "source[privacy]=everyone");
      assert.equal(bad.status, 422);
      await bad.body?.cancel();
    });

    await t.step("statuses: poll=undefined posts without a poll", async () => {
      const res = await form("POST", "/api/v1/statuses", "status=plain&poll=undefined");
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.poll, null);
      // A poll hash is still checked.
      const bad = await form("POST", "/api/v1/statuses", "status=x&poll[options][]=only");
      assert.equal(bad.status, 422);
      await bad.body?.cancel();
    });

    await t.step("markers and filters", async () => {
      const markers = await form("POST", "/api/v1/markers", "home=undefined");
      assert.equal(markers.status, 200, await markers.text());
      const filter = await form(
        "POST",
        "/api/v2/filters",
        "title=Spoilers&context[]=home&keywords_attributes=undefined",
      );
      const body = await filter.json();
      assert.equal(filter.status, 200, JSON.stringify(body));
      assert.deepEqual(body.keywords, []);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
