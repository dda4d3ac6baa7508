/**
 * The PATCH twins (Mastodon's `resources … :update` routes both verbs):
 * every update route Rookery registered only as PUT answers PATCH too, the
 * same way. The router is read as the route walk reads it; a few of them
 * are then driven through PATCH for real.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";

/** Mastodon 4.7's update routes that Rookery had as PUT only. */
const TWINS = [
  "/api/v1/statuses/:id{[0-9]+}",
  "/api/v1/media/:id",
  "/api/v1/scheduled_statuses/:id",
  "/api/v1/lists/:id",
  "/api/v1/filters/:id{[0-9]+}",
  "/api/v2/filters/:id{[0-9]+}",
  "/api/v2/filters/keywords/:id{[0-9]+}",
  "/api/v1/push/subscription",
  "/api/v1/announcements/:id/reactions/:name",
  "/api/v1/admin/reports/:id",
  "/api/v1/admin/domain_blocks/:id",
  "/api/v1/admin/ip_blocks/:id",
  "/api/v1/admin/tags/:id",
];

test("PATCH twins: every update route answers PATCH as it answers PUT", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    await t.step("the router has both verbs for each of the 13", () => {
      const routes = new Set(instance.rookery.routes.map((r) => `${r.method} ${r.path}`));
      const missing = TWINS.flatMap((path) =>
        ["PUT", "PATCH"].map((m) => `${m} ${path}`).filter((key) => !routes.has(key))
      );
      assert.deepEqual(missing, []);
    });

    const alice = await createUser(instance, "alice");
    await t.step("lists, filters, media and statuses change through PATCH", async () => {
      const list = await ok(instance, alice, "POST", "/api/v1/lists", { title: "One" });
      const renamed = await ok(instance, alice, "PATCH", `/api/v1/lists/${list.id}`, {
        title: "Two",
      });
      assert.equal(renamed.title, "Two");

      const filter = await ok(instance, alice, "POST", "/api/v2/filters", {
        title: "Spoilers",
        context: ["home"],
      });
      const changed = await ok(instance, alice, "PATCH", `/api/v2/filters/${filter.id}`, {
        title: "No spoilers",
      });
      assert.equal(changed.title, "No spoilers");

      const media = await mediaRow(instance, alice);
      const described = await ok(instance, alice, "PATCH", `/api/v1/media/${media}`, {
        description: "Alt",
      });
      assert.equal(described.description, "Alt");

      const status = await postStatus(instance, alice, "first words");
      const edited = await ok(instance, alice, "PATCH", `/api/v1/statuses/${status.id}`, {
        status: "second words",
      });
      assert.equal(edited.content, "<p>second words</p>");
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
