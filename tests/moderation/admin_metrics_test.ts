/**
 * The admin dashboard figures on one instance: measures, dimensions and
 * retention asserted against statuses, favourites, boosts, reports, users
 * and a remote server's rows the test makes; the role and scope matrix;
 * hostile dates, keys and params (422 or zeros, never a 5xx).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, follows, statuses, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser } from "../fixtures/users.ts";

const STAFF_SCOPES = ["read", "write", "admin:read", "admin:write"];
const DAY = 86_400_000;
const day = (offset = 0) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

async function setRole(instance: TestInstance, user: { userId: string }, role: string) {
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
}

test("admin measures, dimensions and retention", async (t) => {
  const instance = await startInstance({ worker: false });
  const { db } = instance.rookery.ctx.database;
  try {
    const mod = await createUser(instance, "mod", { scopes: STAFF_SCOPES });
    const boss = await createUser(instance, "boss", { scopes: STAFF_SCOPES });
    const bob = await createUser(instance, "bob", { scopes: STAFF_SCOPES });
    await setRole(instance, mod, "moderator");
    await setRole(instance, boss, "admin");
    const [{ count: userCount }] = await db.$count(users).then((count) => [{ count }]);

    // bob posts twice with #Cats (English), boss replies (French) and boosts, mod favourites.
    const s1 = await postStatus(instance, bob, "I like #Cats", { language: "en" });
    await postStatus(instance, bob, "more #cats here", { language: "en" });
    await postStatus(instance, boss, "moi aussi", { in_reply_to_id: s1.id, language: "fr" });
    await ok(instance, boss, "POST", `/api/v1/statuses/${s1.id}/reblog`);
    await ok(instance, mod, "POST", `/api/v1/statuses/${s1.id}/favourite`);
    const tag = await ok(instance, bob, "GET", "/api/v1/tags/cats");

    // A remote server's account, one status in German, following bob.
    const remoteId = newId();
    await db.insert(accounts).values({
      id: remoteId,
      username: "zed",
      domain: "remote.example",
      uri: "https://remote.example/users/zed",
      followersCount: 7,
    });
    await db.insert(statuses).values({
      id: newId(),
      uri: "https://remote.example/notes/1",
      accountId: remoteId,
      local: false,
      language: "de",
      content: "<p>hallo</p>",
    });
    await db.insert(follows).values({ id: newId(), accountId: remoteId, targetAccountId: bob.id });

    // bob reports boss; mod resolves it.
    const report = await ok(instance, bob, "POST", "/api/v1/reports", { account_id: boss.id });
    await ok(instance, mod, "POST", `/api/v1/admin/reports/${report.id}/resolve`);

    const measures = async (body: Record<string, unknown>) => {
      const res = await callJson(instance, mod, "POST", "/api/v1/admin/measures", body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return Object.fromEntries(
        (res.body as { key: string }[]).map((m) => [m.key, m]),
      ) as Record<string, any>;
    };

    await t.step("measures: figures of today, the day series and the previous window", async () => {
      const m = await measures({
        keys: [
          "active_users",
          "new_users",
          "interactions",
          "opened_reports",
          "resolved_reports",
          "tag_uses",
          "tag_accounts",
          "tag_servers",
          "instance_accounts",
          "instance_statuses",
          "instance_follows",
          "instance_followers",
          "instance_media_attachments",
          "instance_reports",
          "no_such_key",
        ],
        start_at: day(-1),
        end_at: day(),
        tag_uses: { id: tag.id },
        tag_accounts: { id: tag.id },
        tag_servers: { id: tag.id },
        instance_accounts: { domain: "remote.example" },
        instance_statuses: { domain: "Remote.Example" },
        instance_follows: { domain: "remote.example" },
        instance_followers: { domain: "remote.example" },
        instance_media_attachments: { domain: "remote.example" },
        instance_reports: { domain: "remote.example" },
      });
      assert.equal(m.no_such_key, undefined);
      assert.equal(Object.keys(m).length, 14);
      const expected: Record<string, string> = {
        active_users: "3", // bob posted, boss replied and boosted, mod favourited
        new_users: String(userCount),
        interactions: "3", // a reply, a boost and a favourite of s1
        opened_reports: "1",
        resolved_reports: "1",
        tag_uses: "2",
        tag_accounts: "1",
        tag_servers: "1",
        instance_accounts: "1",
        instance_statuses: "1",
        instance_follows: "1",
        instance_followers: "0",
        instance_media_attachments: "0",
        instance_reports: "0",
      };
      for (const [key, total] of Object.entries(expected)) {
        assert.equal(m[key].total, total, key);
        assert.equal(m[key].previous_total, "0", key);
        assert.deepEqual(m[key].data, [
          { date: `${day(-1)}T00:00:00Z`, value: "0" },
          { date: `${day()}T00:00:00Z`, value: total },
        ], key);
      }
      assert.equal(m.instance_media_attachments.unit, "bytes");
      assert.equal(m.instance_media_attachments.human_value, "0 Bytes");
      assert.equal(m.new_users.unit, null);
      assert.deepEqual(Object.keys(m.new_users), [
        "key",
        "unit",
        "total",
        "previous_total",
        "data",
      ]);
    });

    await t.step("measures: today's figures are the next window's previous_total", async () => {
      const m = await measures({
        keys: ["interactions", "tag_uses"],
        start_at: `${day(1)}T12:00:00Z`,
        end_at: day(1),
        tag_uses: { id: tag.id },
      });
      assert.equal(m.interactions.total, "0");
      assert.equal(m.interactions.previous_total, "3");
      assert.equal(m.tag_uses.previous_total, "2");
      assert.equal(m.interactions.data.length, 1);
    });

    await t.step("measures: a missing or hostile tag id or domain gives zeros", async () => {
      const m = await measures({
        keys: ["tag_uses", "tag_servers", "instance_statuses"],
        start_at: day(),
        end_at: day(),
        tag_uses: { id: "1; DROP TABLE tags" },
        tag_servers: "not an object",
        instance_statuses: { domain: "x".repeat(10_000) },
      });
      assert.equal(m.tag_uses.total, "0");
      assert.equal(m.tag_servers.total, "0");
      assert.equal(m.instance_statuses.total, "0");
    });

    await t.step(
      "dimensions: languages, servers, tag and instance breakdowns, versions",
      async () => {
        const res = await callJson(instance, mod, "POST", "/api/v1/admin/dimensions", {
          keys: [
            "languages",
            "servers",
            "tag_servers",
            "tag_languages",
            "instance_accounts",
            "instance_languages",
            "software_versions",
            "space_usage",
            "sources",
            "bogus",
          ],
          start_at: day(),
          end_at: day(),
          limit: "5",
          tag_servers: { id: tag.id },
          tag_languages: { id: tag.id },
          instance_accounts: { domain: "remote.example" },
          instance_languages: { domain: "remote.example" },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const d = Object.fromEntries(
          (res.body as { key: string; data: unknown[] }[]).map((x) => [x.key, x.data]),
        ) as Record<string, any[]>;
        assert.equal(d.bogus, undefined);
        assert.deepEqual(d.languages, [
          { key: "en", human_key: "English", value: "2" },
          { key: "fr", human_key: "French", value: "1" },
        ]);
        assert.deepEqual(d.servers, [
          { key: "remote.example", human_key: "remote.example", value: "1" },
        ]);
        assert.deepEqual(d.tag_servers, [{ key: "local", human_key: "This server", value: "2" }]);
        assert.deepEqual(d.tag_languages, [{ key: "en", human_key: "English", value: "2" }]);
        assert.deepEqual(d.instance_accounts, [{ key: "zed", human_key: "zed", value: "7" }]);
        assert.deepEqual(d.instance_languages, [{ key: "de", human_key: "German", value: "1" }]);
        assert.deepEqual(d.sources, [{
          key: "web",
          human_key: "Website",
          value: String(userCount),
        }]);
        const versions = Object.fromEntries(d.software_versions.map((v) => [v.key, v.value]));
        assert.equal(versions.rookery, ROOKERY_VERSION);
        assert.equal(versions.deno, Deno.version.deno);
        assert.match(versions.postgresql, /^1[5-9]/);
        const space = d.space_usage.find((s) => s.key === "postgresql");
        assert.equal(space.unit, "bytes");
        assert.ok(Number(space.value) > 0);
        assert.match(space.human_value, /^[\d.]+ (KB|MB|GB)$/);

        // limit 1 keeps the first language only.
        const one = await ok(instance, mod, "POST", "/api/v1/admin/dimensions", {
          keys: ["languages"],
          start_at: day(),
          end_at: day(),
          limit: 1,
        });
        assert.deepEqual(one[0].data.map((x: { key: string }) => x.key), ["en"]);
      },
    );

    await t.step("retention: today's cohort and who was active", async () => {
      // bob and boss posted (last_status_at); mod signs in today.
      await db.update(users).set({ lastSignInAt: new Date() }).where(eq(users.id, mod.userId));
      const res = await callJson(instance, mod, "POST", "/api/v1/admin/retention", {
        start_at: day(-1),
        end_at: day(),
        frequency: "day",
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.length, 2);
      const [yesterday, today] = res.body;
      assert.equal(yesterday.period, `${day(-1)}T00:00:00+00:00`);
      assert.equal(yesterday.frequency, "day");
      assert.deepEqual(yesterday.data.map((x: any) => x.value), ["0", "0"]);
      assert.deepEqual(today.data, [
        { date: `${day()}T00:00:00+00:00`, rate: 3 / userCount, value: "3" },
      ]);
      const month = await ok(instance, mod, "POST", "/api/v1/admin/retention", {
        start_at: day(),
        end_at: day(),
        frequency: "month",
      });
      assert.equal(month.length, 1);
      assert.equal(month[0].period, `${day().slice(0, 8)}01T00:00:00+00:00`);
      assert.equal(month[0].data[0].value, "3");
    });

    await t.step("roles and scopes", async () => {
      const body = { keys: ["new_users"], start_at: day(), end_at: day(), frequency: "day" };
      for (const path of ["measures", "dimensions", "retention"]) {
        const url = `/api/v1/admin/${path}`;
        assert.equal((await call(instance, mod, "POST", url, body)).status, 200, path);
        assert.equal((await call(instance, boss, "POST", url, body)).status, 200, path);
        const refused = await callJson(instance, bob, "POST", url, body);
        assert.equal(refused.status, 403, path);
        assert.deepEqual(refused.body, { error: "This action is not allowed" });
        const noAdmin = await createToken(instance, mod.userId, ["read", "write"]);
        assert.equal((await call(instance, noAdmin, "POST", url, body)).status, 403, path);
        assert.equal((await call(instance, null, "POST", url, body)).status, 401, path);
      }
    });

    await t.step("dimensions without dates: all of history, as Mastodon's open range", async () => {
      for (
        const body of [
          { keys: ["languages", "sources"] },
          { keys: ["languages", "sources"], start_at: "1000-01-01", end_at: "9999-12-31" },
        ]
      ) {
        const res = await callJson(instance, mod, "POST", "/api/v1/admin/dimensions", body);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body.map((d: { key: string }) => d.key), ["languages", "sources"]);
        const languages = res.body[0].data as { key: string; value: string }[];
        assert.ok(languages.length > 0, "the statuses posted above are counted");
      }
    });

    await t.step("hostile input: 422 with an error, never a 5xx", async () => {
      const cases: [string, Record<string, unknown>][] = [
        ["measures", { keys: ["new_users"], start_at: "nope", end_at: day() }],
        ["measures", { keys: ["new_users"], start_at: "2024-02-30", end_at: "2024-03-01" }],
        ["measures", { keys: ["new_users"], end_at: day() }],
        ["measures", { keys: ["new_users"], start_at: "1000-01-01", end_at: "9999-12-31" }],
        ["measures", { keys: { a: { b: 1 } }, start_at: day(), end_at: day() }],
        ["dimensions", { keys: ["languages"], start_at: day(), end_at: day(), limit: "lots" }],
        ["dimensions", { keys: ["languages"], start_at: [1], end_at: day() }],
        ["retention", { start_at: day(), end_at: day(), frequency: "week" }],
        ["retention", { start_at: day(-400), end_at: day(), frequency: "day" }],
      ];
      for (const [path, body] of cases) {
        const res = await callJson(instance, mod, "POST", `/api/v1/admin/${path}`, body);
        assert.equal(
          res.status,
          422,
          `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`,
        );
        assert.equal(typeof res.body.error, "string");
      }
      // An end before the start is an empty period, as Mastodon's range would be.
      const m = await measures({ keys: ["new_users"], start_at: day(), end_at: day(-3) });
      assert.deepEqual(m.new_users.data, []);
      assert.equal(m.new_users.total, "0");
      // Form-encoded params work too (keys[]=…).
      const form = await instance.request("/api/v1/admin/measures", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${mod.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: `keys[]=opened_reports&start_at=${day()}&end_at=${day()}`,
      });
      assert.equal(form.status, 200);
      assert.equal((await form.json())[0].total, "1");
    });
  } finally {
    await instance.close();
  }
});
