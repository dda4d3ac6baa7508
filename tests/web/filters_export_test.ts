/**
 * The filters export (Mastodon 4.7): /settings/exports/custom_filters.json
 * gives the signed-in user's filters in Mastodon's shape, statuses as URIs;
 * the export page lists it with its count; another user gets only theirs.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

test("filters export: custom_filters.json", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const [alice] = await Promise.all([createUser(instance, "alice"), createUser(instance, "bob")]);
    const status = await postStatus(instance, alice, "Spoilers ahead");
    const filter = await ok(instance, alice, "POST", "/api/v2/filters", {
      title: "Spoilers",
      context: ["home", "public"],
      filter_action: "hide",
      keywords_attributes: [{ keyword: "finale", whole_word: true }, { keyword: "ending" }],
    });
    await ok(instance, alice, "POST", `/api/v2/filters/${filter.id}/statuses`, {
      status_id: status.id,
    });
    const session = await signInOverHttp(instance, "alice", "/");
    const res = await session.get("/settings/exports/custom_filters.json");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(
      res.headers.get("content-disposition"),
      'attachment; filename="custom_filters.json"',
    );
    assert.deepEqual(await res.json(), [{
      title: "Spoilers",
      expire_at: null,
      context: ["home", "public"],
      action: "hide",
      keywords_attributes: [
        { keyword: "finale", whole_word: true },
        { keyword: "ending", whole_word: true },
      ],
      statuses: [status.uri],
    }]);
    const page = await (await session.get("/settings/export")).text();
    assert.match(page, /custom_filters\.json/);
    assert.match(
      page,
      /<td class="count">1<\/td>\s*<td>\s*<a href="\/settings\/exports\/custom_filters/,
    );
    const bob = await signInOverHttp(instance, "bob", "/");
    assert.deepEqual(await (await bob.get("/settings/exports/custom_filters.json")).json(), []);
  } finally {
    await instance.close({ destroy: true });
  }
});
