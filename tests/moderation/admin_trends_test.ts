/**
 * The admin trends and hashtag APIs on one instance (no worker: the test
 * refreshes the trends itself): everything trending with requires_review,
 * approve/reject of tags, statuses and links honoured by the public trends,
 * Admin::Tag updates whose flags take effect (usable: refused in local
 * posts and edits, not linked in others; listable: out of hashtag search;
 * trendable: out of trends),
 * link publishers (a link without its own decision follows its site's),
 * audit rows, the role matrix, unknown ids and bad bodies.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { refreshTrends } from "../../jobs/trends.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createAccount, createToken, createUser } from "../fixtures/users.ts";
import { insertCard, insertPost } from "../discovery/helpers.ts";

const STAFF_SCOPES = ["read", "write", "admin:read", "admin:write"];

async function setRole(instance: TestInstance, user: { userId: string }, role: string) {
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
}

test("admin trends and admin tags", async (t) => {
  const instance = await startInstance({ worker: false });
  const { db } = instance.rookery.ctx.database;
  const audit = (type: string, id: string) =>
    listAdminActions(db, { targetType: type, targetId: id }).then((rows) =>
      rows.map((r) => [r.action, r.accountId])
    );
  try {
    const mod = await createUser(instance, "mod", { scopes: STAFF_SCOPES });
    const boss = await createUser(instance, "boss", { scopes: STAFF_SCOPES });
    const plain = await createUser(instance, "plain", { scopes: STAFF_SCOPES });
    await setRole(instance, mod, "moderator");
    await setRole(instance, boss, "admin");
    const authors = [];
    for (let i = 0; i < 3; i++) authors.push(await createAccount(instance, `author${i}`));
    const cardId = await insertCard(instance, "https://news.example/story", "A story");
    for (const a of authors) await insertPost(instance, a.id, { tags: ["Hot"], cardId });
    const hotStatus = await insertPost(instance, authors[0].id, { favourites: 5, reblogs: 1 });
    await refreshTrends(instance.rookery.ctx.database, { wait: true });
    const publicTags = async () =>
      (await ok(instance, null, "GET", "/api/v1/trends/tags")).map((x: any) => x.name);
    const tagId = (await ok(instance, mod, "GET", "/api/v1/tags/hot")).id as string;

    await t.step("admin trends list everything, unreviewed, with requires_review", async () => {
      const tags = await ok(instance, mod, "GET", "/api/v1/admin/trends/tags");
      assert.equal(tags.length, 1);
      assert.deepEqual(Object.keys(tags[0]), [
        "id",
        "name",
        "url",
        "history",
        "trendable",
        "usable",
        "requires_review",
        "listable",
      ]);
      assert.equal(tags[0].id, tagId);
      assert.equal(tags[0].requires_review, true);
      assert.equal(tags[0].trendable, true);
      const statuses = await ok(instance, mod, "GET", "/api/v1/admin/trends/statuses");
      assert.deepEqual(statuses.map((s: any) => [s.id, s.requires_review]), [[hotStatus, true]]);
      const links = await ok(instance, mod, "GET", "/api/v1/admin/trends/links");
      assert.deepEqual(
        links.map((l: any) => [l.id, l.url, l.requires_review]),
        [[cardId, "https://news.example/story", true]],
      );
    });

    let publisherId = "";
    await t.step("publishers: a link without its own decision follows its site's", async () => {
      const list = await ok(instance, mod, "GET", "/api/v1/admin/trends/links/publishers");
      assert.deepEqual(list.map((p: any) => [p.domain, p.trendable, p.requires_review]), [
        ["news.example", true, true],
      ]);
      publisherId = list[0].id;
      const publicLinks = async () =>
        (await ok(instance, null, "GET", "/api/v1/trends/links")).map((l: any) => l.url);
      assert.deepEqual(await publicLinks(), ["https://news.example/story"]);
      const rejected = await ok(
        instance,
        mod,
        "POST",
        `/api/v1/admin/trends/links/publishers/${publisherId}/reject`,
      );
      assert.deepEqual([rejected.domain, rejected.trendable, rejected.requires_review], [
        "news.example",
        false,
        false,
      ]);
      assert.deepEqual(await publicLinks(), []);
      await ok(
        instance,
        mod,
        "POST",
        `/api/v1/admin/trends/links/publishers/${publisherId}/approve`,
      );
      assert.deepEqual(await publicLinks(), ["https://news.example/story"]);
      assert.deepEqual(await audit("PreviewCardProvider", publisherId), [
        ["approve", mod.id],
        ["reject", mod.id],
      ]);
      // A refresh keeps the publisher (and its decision).
      await refreshTrends(instance.rookery.ctx.database, { wait: true });
      const again = await ok(instance, mod, "GET", "/api/v1/admin/trends/links/publishers");
      assert.deepEqual(again.map((p: any) => [p.id, p.requires_review]), [[publisherId, false]]);
      const unknown = await callJson(
        instance,
        mod,
        "POST",
        "/api/v1/admin/trends/links/publishers/123/approve",
      );
      assert.equal(unknown.status, 404);
    });

    await t.step("reject and approve: public trends follow, audit rows", async () => {
      assert.deepEqual(await publicTags(), ["Hot"]);
      const rejected = await ok(instance, mod, "POST", `/api/v1/admin/trends/tags/${tagId}/reject`);
      assert.equal(rejected.trendable, false);
      assert.equal(rejected.requires_review, false);
      assert.deepEqual(await publicTags(), []);
      // Still listed for staff.
      assert.equal((await ok(instance, mod, "GET", "/api/v1/admin/trends/tags")).length, 1);
      const approved = await ok(
        instance,
        boss,
        "POST",
        `/api/v1/admin/trends/tags/${tagId}/approve`,
      );
      assert.equal(approved.trendable, true);
      assert.deepEqual(await publicTags(), ["Hot"]);
      assert.deepEqual(await audit("Tag", tagId), [["approve", boss.id], ["reject", mod.id]]);

      const s = await ok(
        instance,
        mod,
        "POST",
        `/api/v1/admin/trends/statuses/${hotStatus}/reject`,
      );
      assert.equal(s.id, hotStatus);
      assert.equal(s.requires_review, false);
      assert.deepEqual(await ok(instance, null, "GET", "/api/v1/trends/statuses"), []);
      assert.deepEqual(await audit("Status", hotStatus), [["reject", mod.id]]);

      const l = await ok(instance, mod, "POST", `/api/v1/admin/trends/links/${cardId}/reject`);
      assert.equal(l.requires_review, false);
      assert.deepEqual(await ok(instance, null, "GET", "/api/v1/trends/links"), []);
      await ok(instance, mod, "POST", `/api/v1/admin/trends/links/${cardId}/approve`);
      assert.equal((await ok(instance, null, "GET", "/api/v1/trends/links")).length, 1);
      assert.deepEqual(await audit("PreviewCard", cardId), [["approve", mod.id], [
        "reject",
        mod.id,
      ]]);
    });

    await t.step("unknown ids are 404 and write nothing", async () => {
      for (const path of ["tags", "statuses", "links"]) {
        for (const id of ["999999999", "abc", "1e5"]) {
          const res = await callJson(
            instance,
            mod,
            "POST",
            `/api/v1/admin/trends/${path}/${id}/approve`,
          );
          assert.equal(res.status, 404, `${path} ${id}`);
          assert.deepEqual(res.body, { error: "Record not found" });
        }
      }
      assert.equal((await callJson(instance, mod, "GET", "/api/v1/admin/tags/42")).status, 404);
      const put = await callJson(instance, mod, "PUT", "/api/v1/admin/tags/nope", {
        usable: false,
      });
      assert.equal(put.status, 404);
    });

    await t.step("admin tags: list, show, paging", async () => {
      await postStatus(instance, mod, "#alpha #beta");
      const list = await callJson(instance, mod, "GET", "/api/v1/admin/tags?limit=2");
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.map((x: any) => x.name), ["beta", "alpha"]);
      assert.match(list.headers.get("Link") ?? "", /max_id=/);
      const rest = await ok(instance, mod, "GET", `/api/v1/admin/tags?max_id=${list.body[1].id}`);
      assert.deepEqual(rest.map((x: any) => x.name), ["Hot"]);
      const one = await ok(instance, mod, "GET", `/api/v1/admin/tags/${tagId}`);
      assert.equal(one.name, "Hot");
      assert.equal(one.usable, true);
      assert.equal(one.listable, true);
      assert.equal(one.history.length, 7);
    });

    await t.step("admin tags: display_name must be the name; flags take effect", async () => {
      const before = (await audit("Tag", tagId)).length;
      const bad = await callJson(instance, mod, "PUT", `/api/v1/admin/tags/${tagId}`, {
        display_name: "Cold",
        usable: false,
      });
      assert.equal(bad.status, 422);
      assert.match(bad.body.error, /Display name/);
      assert.equal((await audit("Tag", tagId)).length, before, "nothing written");
      assert.equal((await ok(instance, mod, "GET", `/api/v1/admin/tags/${tagId}`)).usable, true);

      const renamed = await ok(instance, mod, "PUT", `/api/v1/admin/tags/${tagId}`, {
        display_name: "HOT",
      });
      assert.equal(renamed.name, "HOT");

      // usable=false: a local status may not use the tag (Mastodon's DisallowedHashtagsValidator).
      const linkedBefore = await ok(instance, null, "GET", "/api/v1/timelines/tag/hot");
      await ok(instance, mod, "PUT", `/api/v1/admin/tags/${tagId}`, { usable: "false" });
      const refused = await callJson(instance, plain, "POST", "/api/v1/statuses", {
        status: "still #hot and #fine",
      });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body, {
        error: "Validation failed: Text contained the disallowed hashtag: Hot",
      });
      const linkedAfter = await ok(instance, null, "GET", "/api/v1/timelines/tag/hot");
      assert.equal(linkedAfter.length, linkedBefore.length);
      // An edit may not add it either.
      const own = await postStatus(instance, plain, "nothing tagged");
      const edit = await callJson(instance, plain, "PUT", `/api/v1/statuses/${own.id}`, {
        status: "now #HOT",
      });
      assert.equal(edit.status, 422);

      // listable=false: out of hashtag search.
      const search = async () =>
        (await ok(instance, plain, "GET", "/api/v2/search?q=%23hot&type=hashtags")).hashtags
          .map((x: any) => x.name);
      assert.equal((await search()).length, 1);
      await ok(instance, mod, "PUT", `/api/v1/admin/tags/${tagId}`, { listable: false });
      assert.deepEqual(await search(), []);

      // trendable=false: out of the public trends.
      assert.equal((await publicTags()).length, 1);
      const last = await ok(instance, mod, "PUT", `/api/v1/admin/tags/${tagId}`, {
        trendable: false,
      });
      assert.deepEqual(
        [last.trendable, last.usable, last.listable, last.requires_review],
        [false, false, false, false],
      );
      assert.deepEqual(await publicTags(), []);
      assert.equal((await audit("Tag", tagId)).length, before + 4);
      assert.deepEqual((await audit("Tag", tagId))[0], ["update", mod.id]);
    });

    await t.step("roles and scopes", async () => {
      const noAdmin = await createToken(instance, mod.userId, ["read", "write"]);
      const routes: [string, string][] = [
        ["GET", "/api/v1/admin/trends/tags"],
        ["GET", "/api/v1/admin/trends/statuses"],
        ["GET", "/api/v1/admin/trends/links"],
        ["GET", "/api/v1/admin/tags"],
        ["GET", `/api/v1/admin/tags/${tagId}`],
        ["PUT", `/api/v1/admin/tags/${tagId}`],
        ["POST", `/api/v1/admin/trends/tags/${tagId}/approve`],
        ["POST", `/api/v1/admin/trends/statuses/${hotStatus}/approve`],
        ["POST", `/api/v1/admin/trends/links/${cardId}/approve`],
        ["GET", "/api/v1/admin/trends/links/publishers"],
        ["POST", `/api/v1/admin/trends/links/publishers/${publisherId}/approve`],
      ];
      for (const [method, path] of routes) {
        const body = method === "GET" ? undefined : {};
        assert.equal((await call(instance, mod, method, path, body)).status, 200, path);
        assert.equal((await call(instance, boss, method, path, body)).status, 200, path);
        assert.equal((await call(instance, plain, method, path, body)).status, 403, path);
        assert.equal((await call(instance, noAdmin, method, path, body)).status, 403, path);
        assert.equal((await call(instance, null, method, path, body)).status, 401, path);
      }
    });
  } finally {
    await instance.close();
  }
});
