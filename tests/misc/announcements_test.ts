/**
 * Announcements end to end: written with `deno task admin announcement`
 * through a running server's admin socket (a subprocess, as an operator
 * would), then read, dismissed and reacted to over the Mastodon API.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { cli, type CliTarget, expectCode } from "../admin/cli.ts";
import { addEmoji } from "../emoji/helpers.ts";

const dataDir = await Deno.makeTempDir({ prefix: "rookery-announcements-" });
const server = await startInstance({ dataDir, memory: false, worker: false, adminSocket: true });
const target: CliTarget = { dataDir, databaseUrl: server.databaseUrl };

/** Runs `announcement create` and returns the new id. */
async function create(...args: string[]): Promise<string> {
  const run = await cli(target, "announcement", "create", ...args);
  expectCode(run, 0);
  const id = run.stdout.match(/Created announcement (\d+)/)?.[1];
  assert.ok(id, run.stdout);
  return id;
}

test("announcements: admin CLI, list, entity, dismiss, reactions", async (t) => {
  try {
    const alice = await createUser(server, "alice");
    const bob = await createUser(server, "bob");
    const reader = await createUser(server, "reader", { scopes: ["read"] });
    await addEmoji(server, "blobcat");
    const post = await postStatus(server, alice, "the release notes", { visibility: "public" });
    const hidden = await postStatus(server, alice, "private", { visibility: "private" });

    let main = "", second = "", draft = "", ended = "";
    await t.step("created through the admin socket", async () => {
      main = await create(
        "--text",
        `Hello @alice! Read #News :blobcat: ${server.origin}/@alice/${post.id} ` +
          `and ${server.origin}/@alice/${hidden.id} <script>`,
        "--starts-at",
        "2099-06-01",
        "--ends-at",
        "2099-06-02T18:00:00+02:00",
        "--all-day",
      );
      second = await create("--text", "Maintenance tonight");
      draft = await create("--text", "Not yet", "--unpublished");
      ended = await create(
        "--text",
        "Old news",
        "--starts-at",
        "2020-01-01",
        "--ends-at",
        "2020-01-02",
      );

      // Usage errors (2) and validation failures (1).
      expectCode(await cli(target, "announcement", "create"), 2);
      expectCode(
        await cli(target, "announcement", "create", "--text", "x", "--starts-at", "soon"),
        2,
      );
      const blank = await cli(target, "announcement", "create", "--text", "  ");
      expectCode(blank, 1);
      assert.match(blank.stderr, /text can't be blank/);
      const backwards = await cli(
        target,
        "announcement",
        "create",
        "--text",
        "x",
        "--starts-at",
        "2030-01-02",
        "--ends-at",
        "2030-01-01",
      );
      expectCode(backwards, 1);
      assert.match(backwards.stderr, /ends_at must be after the start/);
      expectCode(
        await cli(target, "announcement", "create", "--text", "x", "--ends-at", "2030-01-01"),
        1,
      );

      const listed = JSON.parse((await cli(target, "announcement", "list", "--json")).stdout);
      assert.deepEqual(
        listed.map((a: any) => [a.id, a.state]),
        [[ended, "ended"], [draft, "unpublished"], [second, "published"], [main, "published"]],
      );
      assert.equal(listed[3].ends_at, "2099-06-02T16:00:00.000Z");
      const table = await cli(target, "announcement", "list");
      assert.match(table.stdout, /Maintenance tonight/);
    });

    await t.step("GET /api/v1/announcements: active ones, Mastodon's entity", async () => {
      const list = await ok<any[]>(server, bob, "GET", "/api/v1/announcements");
      // Published and not ended; by start (else publication): the one without a start first.
      assert.deepEqual(list.map((a) => a.id), [second, main]);
      const a = list[1];
      assert.deepEqual(Object.keys(a).sort(), [
        "all_day",
        "content",
        "emojis",
        "ends_at",
        "id",
        "mentions",
        "published_at",
        "reactions",
        "read",
        "starts_at",
        "statuses",
        "tags",
        "updated_at",
      ]);
      assert.equal(a.starts_at, "2099-06-01T00:00:00.000Z");
      assert.equal(a.ends_at, "2099-06-02T16:00:00.000Z");
      assert.equal(a.all_day, true);
      assert.equal(a.read, false);
      assert.ok(a.published_at);
      assert.match(
        a.content,
        /^<p>Hello <span class="h-card" translate="no"><a href="[^"]+\/@alice" class="u-url mention">/,
      );
      assert.match(a.content, /#<span>News<\/span><\/a>/);
      assert.match(a.content, /&lt;script&gt;/);
      assert.doesNotMatch(a.content, /<script>/);
      assert.deepEqual(a.mentions, [{
        id: alice.id,
        username: "alice",
        url: `${server.origin}/@alice`,
        acct: "alice",
      }]);
      assert.deepEqual(a.statuses, [{ id: post.id, url: post.url }], "only the public post");
      assert.deepEqual(a.tags, [{ name: "News", url: `${server.origin}/tags/news` }]);
      assert.deepEqual(a.emojis.map((e: any) => e.shortcode), ["blobcat"]);
      assert.deepEqual(a.reactions, []);

      assert.equal((await callJson(server, null, "GET", "/api/v1/announcements")).status, 401);
    });

    await t.step("reactions: Unicode and custom emoji, 422s, limit, remove", async () => {
      const path = (id: string, name: string) =>
        `/api/v1/announcements/${id}/reactions/${encodeURIComponent(name)}`;
      assert.deepEqual(await ok(server, bob, "PUT", path(main, "👍")), {});
      await ok(server, bob, "PUT", path(main, "👍")); // again: no change
      await ok(server, alice, "PUT", path(main, "👍"));
      await ok(server, alice, "PUT", path(main, "blobcat"));
      await ok(server, alice, "PUT", path(main, "❤")); // without the variation selector
      for (const name of ["nope", "blob cat", "👍👍", "a", "x".repeat(200), "\u0000"]) {
        const res = await callJson(server, bob, "PUT", path(main, name));
        assert.equal(res.status, 422, name);
        assert.equal(res.body.error, "Validation failed: Name is not a recognized emoji");
      }
      const [, a] = await ok<any[]>(server, bob, "GET", "/api/v1/announcements");
      const blobcat = a.emojis[0];
      assert.deepEqual(a.reactions, [
        { name: "👍", count: 2, me: true },
        { name: "blobcat", count: 1, me: false, url: blobcat.url, static_url: blobcat.static_url },
        { name: "❤", count: 1, me: false },
      ]);

      // At most 8 different reactions; joining an existing one still works.
      for (const name of ["😀", "🎉", "🇫🇷", "👍🏽", "1️⃣"]) {
        await ok(server, bob, "PUT", path(main, name));
      }
      const over = await callJson(server, bob, "PUT", path(main, "🚀"));
      assert.equal(over.status, 422);
      assert.equal(over.body.error, "Validation failed: Limit of different reactions reached");
      await ok(server, alice, "PUT", path(main, "🎉"));
      const [, full] = await ok<any[]>(server, bob, "GET", "/api/v1/announcements");
      assert.equal(full.reactions.length, 8);
      assert.equal(full.reactions.find((r: any) => r.name === "🎉").count, 2);

      // Remove: mine only; removing what is not there is fine.
      assert.deepEqual(await ok(server, bob, "DELETE", path(main, "👍")), {});
      await ok(server, bob, "DELETE", path(main, "👍"));
      await ok(server, bob, "DELETE", path(main, "nope%00"));
      const [, after] = await ok<any[]>(server, alice, "GET", "/api/v1/announcements");
      assert.deepEqual(after.reactions[0], { name: "👍", count: 1, me: true });

      // Unknown, unpublished, ended or junk ids: 404; wrong scope: 403; no token: 401.
      for (const id of [draft, ended, "999999", "abc"]) {
        const res = await callJson(server, bob, "PUT", path(id, "👍"));
        assert.equal(res.status, 404, id);
        assert.deepEqual(res.body, { error: "Record not found" });
        assert.equal((await callJson(server, bob, "DELETE", path(id, "👍"))).status, 404);
      }
      assert.equal((await callJson(server, reader, "PUT", path(main, "👍"))).status, 403);
      assert.equal((await callJson(server, null, "PUT", path(main, "👍"))).status, 401);
    });

    await t.step("dismiss, with_dismissed", async () => {
      assert.deepEqual(
        await ok(server, bob, "POST", `/api/v1/announcements/${second}/dismiss`),
        {},
      );
      await ok(server, bob, "POST", `/api/v1/announcements/${second}/dismiss`);
      assert.deepEqual(
        (await ok<any[]>(server, bob, "GET", "/api/v1/announcements")).map((a) => a.id),
        [main],
      );
      const all = await ok<any[]>(server, bob, "GET", "/api/v1/announcements?with_dismissed=true");
      assert.deepEqual(all.map((a) => [a.id, a.read]), [[second, true], [main, false]]);
      // Alice did not dismiss it.
      assert.equal((await ok<any[]>(server, alice, "GET", "/api/v1/announcements")).length, 2);
      for (const id of [draft, ended, "999999", "abc"]) {
        const res = await callJson(server, bob, "POST", `/api/v1/announcements/${id}/dismiss`);
        assert.equal(res.status, 404, id);
      }
      const refused = await callJson(
        server,
        reader,
        "POST",
        `/api/v1/announcements/${main}/dismiss`,
      );
      assert.equal(refused.status, 403);
    });

    await t.step("publish, unpublish, delete through the CLI", async () => {
      expectCode(await cli(target, "announcement", "publish", draft), 0);
      const ids = async () =>
        (await ok<any[]>(server, alice, "GET", "/api/v1/announcements")).map((a) => a.id);
      assert.deepEqual(await ids(), [second, draft, main]);
      expectCode(await cli(target, "announcement", "unpublish", second), 0);
      assert.deepEqual(await ids(), [draft, main]);
      const deleted = await cli(target, "announcement", "delete", main);
      expectCode(deleted, 0);
      assert.match(deleted.stdout, /Deleted announcement/);
      assert.deepEqual(await ids(), [draft]);
      expectCode(await cli(target, "announcement", "delete", main), 1);
      expectCode(await cli(target, "announcement", "delete", "not-an-id"), 1);
      expectCode(await cli(target, "announcement", "publish"), 2);
    });
  } finally {
    await server.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
