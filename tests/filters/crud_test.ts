/**
 * The filter routes: v2 filters with nested keywords, the keywords and
 * statuses sub-resources, v1 filters mapped onto v2 keywords, Mastodon's
 * validation messages, someone else's ids (404), limits and scopes.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import {
  MAX_FILTERS,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS_PER_ACCOUNT,
  MAX_KEYWORDS_PER_FILTER,
} from "../../actors/filters/rules.ts";
import { customFilterKeywords, customFilters } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";

test("filters: v2 and v1 CRUD, validation, ownership and scopes", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    let filterId = "";
    let keywordIds: string[] = [];

    await t.step("v2: create with keywords, list, show", async () => {
      const created = await ok(a, alice, "POST", "/api/v2/filters", {
        title: "Spoilers",
        context: ["home", "public"],
        filter_action: "hide",
        expires_in: 3600,
        keywords_attributes: [
          { keyword: "finale" },
          { keyword: "ending", whole_word: false },
          { keyword: "" }, // all blank: ignored, as Rails' reject_if: :all_blank
        ],
      });
      filterId = created.id;
      assert.deepEqual(Object.keys(created), [
        "id",
        "title",
        "context",
        "expires_at",
        "filter_action",
        "keywords",
        "statuses",
      ]);
      assert.equal(created.title, "Spoilers");
      assert.deepEqual(created.context, ["home", "public"]);
      assert.equal(created.filter_action, "hide");
      const expires = Date.parse(created.expires_at) - Date.now();
      assert.ok(expires > 3500_000 && expires <= 3600_000, created.expires_at);
      assert.deepEqual(
        created.keywords.map((k: any) => [k.keyword, k.whole_word]),
        [["finale", true], ["ending", false]],
      );
      keywordIds = created.keywords.map((k: any) => k.id);
      assert.deepEqual(created.statuses, []);

      const list = await ok(a, alice, "GET", "/api/v2/filters");
      assert.deepEqual(list, [created]);
      assert.deepEqual(await ok(a, alice, "GET", `/api/v2/filters/${filterId}/`), created);
      assert.deepEqual(await ok(a, bob, "GET", "/api/v2/filters"), []);
    });

    await t.step("v2: form-encoded create, default action warn, no expiry", async () => {
      const res = await a.request("/api/v2/filters", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${alice.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body:
          "title=Cats&context[]=notifications&keywords_attributes[0][keyword]=cat&keywords_attributes[0][whole_word]=0",
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.filter_action, "warn");
      assert.equal(body.expires_at, null);
      assert.deepEqual(body.keywords.map((k: any) => [k.keyword, k.whole_word]), [["cat", false]]);
      assert.equal(
        (await ok(a, alice, "DELETE", `/api/v2/filters/${body.id}`)).constructor,
        Object,
      );
    });

    await t.step("v2: validation errors in Mastodon's words, nothing written", async () => {
      const bad = async (body: Record<string, unknown>, error: string) => {
        const res = await callJson(a, alice, "POST", "/api/v2/filters", body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.error, error);
      };
      await bad(
        { title: "x" },
        "Validation failed: Context can't be blank, Context None or invalid context supplied",
      );
      await bad(
        { context: ["home"] },
        "Validation failed: Title can't be blank",
      );
      await bad(
        { title: "x", context: ["home", "everywhere"] },
        "Validation failed: Context None or invalid context supplied",
      );
      await bad(
        { title: "x", context: ["home"], filter_action: "explode" },
        "Validation failed: Filter action is not included in the list",
      );
      await bad(
        { title: "x", context: ["home"], keywords_attributes: [{ keyword: "", whole_word: true }] },
        "Validation failed: Keywords keyword can't be blank",
      );
      await bad(
        {
          title: "x",
          context: ["home"],
          keywords_attributes: [{ keyword: "k".repeat(MAX_KEYWORD_LENGTH + 1) }],
        },
        `Validation failed: Keywords keyword is too long (maximum is ${MAX_KEYWORD_LENGTH} characters)`,
      );
      await bad(
        { title: "x", context: ["home"], expires_in: "soon" },
        "Validation failed: Expires in is not a number",
      );
      await bad(
        { title: "x", context: ["home"], expires_in: -5 },
        "Validation failed: Expires in must be greater than or equal to 0",
      );
      const tooMany = Array.from({ length: MAX_KEYWORDS_PER_FILTER + 1 }, (_, i) => ({
        keyword: `k${i}`,
      }));
      await bad(
        { title: "x", context: ["home"], keywords_attributes: tooMany },
        `Validation failed: A filter may hold at most ${MAX_KEYWORDS_PER_FILTER} keywords`,
      );
      const list = await ok(a, alice, "GET", "/api/v2/filters");
      assert.equal(list.length, 1, "no filter was half written");
    });

    await t.step("v2: update with nested keyword changes and removals", async () => {
      const updated = await ok(a, alice, "PUT", `/api/v2/filters/${filterId}`, {
        title: "Spoilers!",
        context: ["thread"],
        filter_action: "blur",
        expires_in: "",
        keywords_attributes: [
          { id: keywordIds[0], keyword: "season finale" },
          { id: keywordIds[1], _destroy: true },
          { keyword: "twist", whole_word: true },
        ],
      });
      assert.equal(updated.title, "Spoilers!");
      assert.deepEqual(updated.context, ["thread"]);
      assert.equal(updated.filter_action, "blur");
      assert.equal(updated.expires_at, null, "a blank expires_in clears the expiry");
      assert.deepEqual(updated.keywords.map((k: any) => k.keyword), ["season finale", "twist"]);
      keywordIds = updated.keywords.map((k: any) => k.id);

      // Another filter's keyword id in keywords_attributes: 404, and nothing changed.
      const other = await ok(a, bob, "POST", "/api/v2/filters", {
        title: "Bob's",
        context: ["home"],
        keywords_attributes: [{ keyword: "bob" }],
      });
      const res = await callJson(a, alice, "PUT", `/api/v2/filters/${filterId}`, {
        title: "Changed",
        keywords_attributes: [{ id: other.keywords[0].id, keyword: "stolen" }],
      });
      assert.equal(res.status, 404);
      assert.equal(res.body.error, "Record not found");
      assert.equal((await ok(a, alice, "GET", `/api/v2/filters/${filterId}`)).title, "Spoilers!");
      assert.equal((await ok(a, bob, "GET", "/api/v2/filters"))[0].keywords[0].keyword, "bob");

      // Someone else's filter is not found, whatever the verb.
      for (
        const [method, path] of [
          ["GET", `/api/v2/filters/${other.id}`],
          ["PUT", `/api/v2/filters/${other.id}`],
          ["DELETE", `/api/v2/filters/${other.id}`],
          ["GET", `/api/v2/filters/${other.id}/keywords`],
          ["POST", `/api/v2/filters/${other.id}/keywords`],
          ["GET", `/api/v2/filters/${other.id}/statuses`],
          ["POST", `/api/v2/filters/${other.id}/statuses`],
          ["GET", `/api/v2/filters/keywords/${other.keywords[0].id}`],
          ["PUT", `/api/v2/filters/keywords/${other.keywords[0].id}`],
          ["DELETE", `/api/v2/filters/keywords/${other.keywords[0].id}`],
          ["GET", "/api/v2/filters/99999999999"],
          ["GET", "/api/v2/filters/not-an-id"],
        ]
      ) {
        const r = await callJson(
          a,
          alice,
          method,
          path,
          method === "GET" ? undefined : {
            keyword: "x",
            status_id: "1",
          },
        );
        assert.equal(r.status, 404, `${method} ${path}`);
        assert.deepEqual(r.body, { error: "Record not found" });
      }
      assert.equal((await ok(a, bob, "GET", "/api/v2/filters")).length, 1);
    });

    await t.step("v2 keywords sub-resource", async () => {
      const added = await ok(a, alice, "POST", `/api/v2/filters/${filterId}/keywords`, {
        keyword: "cliffhanger",
        whole_word: false,
      });
      assert.deepEqual(Object.keys(added), ["id", "keyword", "whole_word"]);
      assert.equal(added.whole_word, false);
      const list = await ok(a, alice, "GET", `/api/v2/filters/${filterId}/keywords`);
      assert.deepEqual(list.map((k: any) => k.keyword), ["season finale", "twist", "cliffhanger"]);
      assert.deepEqual(await ok(a, alice, "GET", `/api/v2/filters/keywords/${added.id}`), added);
      const changed = await ok(a, alice, "PUT", `/api/v2/filters/keywords/${added.id}`, {
        whole_word: true,
      });
      assert.deepEqual(changed, { ...added, whole_word: true });
      const blank = await callJson(a, alice, "PUT", `/api/v2/filters/keywords/${added.id}`, {
        keyword: " ",
      });
      assert.equal(blank.status, 422);
      assert.equal(blank.body.error, "Validation failed: Keyword can't be blank");
      assert.deepEqual(await ok(a, alice, "DELETE", `/api/v2/filters/keywords/${added.id}`), {});
      assert.equal(
        (await call(a, alice, "GET", `/api/v2/filters/keywords/${added.id}`)).status,
        404,
      );
    });

    await t.step("v2 statuses sub-resource", async () => {
      const seen = await postStatus(a, bob, "A post to filter");
      const hidden = await postStatus(a, bob, "Only for bob", { visibility: "direct" });
      const added = await ok(a, alice, "POST", `/api/v2/filters/${filterId}/statuses`, {
        status_id: seen.id,
      });
      assert.deepEqual(added, { id: added.id, status_id: seen.id });
      const again = await callJson(a, alice, "POST", `/api/v2/filters/${filterId}/statuses`, {
        status_id: seen.id,
      });
      assert.equal(again.status, 422);
      assert.equal(again.body.error, "Validation failed: Status has already been taken");
      for (const statusId of [hidden.id, "123", "nope", ""]) {
        const r = await callJson(a, alice, "POST", `/api/v2/filters/${filterId}/statuses`, {
          status_id: statusId,
        });
        assert.equal(r.status, 422, statusId);
        assert.equal(r.body.error, "Validation failed: Status must exist");
      }
      assert.deepEqual(await ok(a, alice, "GET", `/api/v2/filters/${filterId}/statuses`), [added]);
      assert.deepEqual(await ok(a, alice, "GET", `/api/v2/filters/statuses/${added.id}`), added);
      assert.equal(
        (await call(a, bob, "GET", `/api/v2/filters/statuses/${added.id}`)).status,
        404,
      );
      assert.equal(
        (await call(a, bob, "DELETE", `/api/v2/filters/statuses/${added.id}`)).status,
        404,
      );
      assert.deepEqual(
        (await ok(a, alice, "GET", `/api/v2/filters/${filterId}`)).statuses,
        [added],
      );
      assert.deepEqual(await ok(a, alice, "DELETE", `/api/v2/filters/statuses/${added.id}`), {});
      assert.deepEqual(await ok(a, alice, "GET", `/api/v2/filters/${filterId}/statuses`), []);
    });

    await t.step("v1: each keyword is a filter; create, update, delete", async () => {
      const list = await ok(a, alice, "GET", "/api/v1/filters");
      assert.deepEqual(list.map((f: any) => f.phrase), ["season finale", "twist"]);
      assert.deepEqual(list[0], {
        id: keywordIds[0],
        phrase: "season finale",
        context: ["thread"],
        whole_word: true,
        expires_at: null,
        irreversible: false,
      });

      const created = await ok(a, alice, "POST", "/api/v1/filters", {
        phrase: "durian",
        context: ["home", "notifications"],
        irreversible: true,
        whole_word: false,
        expires_in: 600,
      });
      assert.equal(created.phrase, "durian");
      assert.equal(created.irreversible, true);
      assert.equal(created.whole_word, false);
      assert.ok(created.expires_at);
      // Seen from v2: a filter titled with the phrase, action hide, one keyword.
      const v2 = (await ok(a, alice, "GET", "/api/v2/filters")).find((f: any) =>
        f.title === "durian"
      );
      assert.equal(v2.filter_action, "hide");
      assert.deepEqual(v2.keywords, [{ id: created.id, keyword: "durian", whole_word: false }]);

      const updated = await ok(a, alice, "PUT", `/api/v1/filters/${created.id}`, {
        phrase: "jackfruit",
        context: ["public"],
        irreversible: false,
      });
      assert.equal(updated.phrase, "jackfruit");
      assert.deepEqual(updated.context, ["public"]);
      assert.equal(updated.irreversible, false);
      const v2After = await ok(a, alice, "GET", `/api/v2/filters/${v2.id}`);
      assert.equal(v2After.title, "jackfruit");
      assert.equal(v2After.filter_action, "warn");

      // A keyword of a filter with several: only the keyword's own fields may change.
      const shared = await callJson(a, alice, "PUT", `/api/v1/filters/${keywordIds[0]}`, {
        context: ["home"],
      });
      assert.equal(shared.status, 422);
      assert.match(shared.body.error, /apply to more than one filter keyword/);
      const keywordOnly = await ok(a, alice, "PUT", `/api/v1/filters/${keywordIds[0]}`, {
        whole_word: false,
      });
      assert.equal(keywordOnly.whole_word, false);

      const missing = await callJson(a, alice, "POST", "/api/v1/filters", { phrase: "x" });
      assert.equal(missing.status, 422);
      assert.equal(
        missing.body.error,
        "Validation failed: Context can't be blank, Context None or invalid context supplied",
      );
      const blank = await callJson(a, alice, "POST", "/api/v1/filters", { context: ["home"] });
      assert.equal(blank.body.error, "Validation failed: Phrase can't be blank");

      assert.equal((await call(a, bob, "GET", `/api/v1/filters/${created.id}`)).status, 404);
      assert.equal((await call(a, bob, "PUT", `/api/v1/filters/${created.id}`)).status, 404);
      assert.equal((await call(a, bob, "DELETE", `/api/v1/filters/${created.id}`)).status, 404);
      assert.deepEqual(await ok(a, alice, "DELETE", `/api/v1/filters/${created.id}`), {});
      assert.ok(
        !(await ok(a, alice, "GET", "/api/v1/filters")).some((f: any) => f.id === created.id),
      );
    });

    await t.step("v2: delete takes keywords and statuses along", async () => {
      assert.deepEqual(await ok(a, alice, "DELETE", `/api/v2/filters/${filterId}`), {});
      assert.equal((await call(a, alice, "GET", `/api/v2/filters/${filterId}`)).status, 404);
      assert.equal(
        (await call(a, alice, "GET", `/api/v2/filters/keywords/${keywordIds[0]}`)).status,
        404,
      );
    });

    await t.step("at most MAX_FILTERS filters per account", async () => {
      const hoarder = await createUser(a, "hoarder");
      await a.rookery.ctx.database.db.insert(customFilters).values(
        Array.from({ length: MAX_FILTERS }, () => ({
          id: newId(),
          accountId: hoarder.id,
          title: "many",
          context: ["home"],
        })),
      );
      const res = await callJson(a, hoarder, "POST", "/api/v2/filters", {
        title: "one more",
        context: ["home"],
      });
      assert.equal(res.status, 422);
      assert.equal(
        res.body.error,
        `Validation failed: You have reached the maximum of ${MAX_FILTERS} filters`,
      );
      const v1 = await callJson(a, hoarder, "POST", "/api/v1/filters", {
        phrase: "one more",
        context: ["home"],
      });
      assert.equal(v1.status, 422);
      assert.equal((await ok(a, hoarder, "GET", "/api/v2/filters")).length, MAX_FILTERS);
    });

    await t.step("at most MAX_KEYWORDS_PER_ACCOUNT keywords per account", async () => {
      const wordy = await createUser(a, "wordy");
      const { db } = a.rookery.ctx.database;
      const filters = Array.from(
        { length: MAX_KEYWORDS_PER_ACCOUNT / 10 },
        () => ({ id: newId(), accountId: wordy.id, title: "words", context: ["home"] }),
      );
      await db.insert(customFilters).values(filters);
      await db.insert(customFilterKeywords).values(
        filters.flatMap((f) =>
          Array.from({ length: 10 }, (_, i) => ({
            id: newId(),
            customFilterId: f.id,
            accountId: wordy.id,
            keyword: `w${i}`,
          }))
        ),
      );
      const error =
        `Validation failed: You have reached the maximum of ${MAX_KEYWORDS_PER_ACCOUNT} filter keywords`;
      const one = await callJson(a, wordy, "POST", `/api/v2/filters/${filters[0].id}/keywords`, {
        keyword: "one more",
      });
      assert.equal(one.status, 422);
      assert.equal(one.body.error, error);
      const nested = await callJson(a, wordy, "PUT", `/api/v2/filters/${filters[1].id}`, {
        title: "renamed",
        keywords_attributes: [{ keyword: "one more" }],
      });
      assert.equal(nested.status, 422);
      assert.equal(nested.body.error, error);
      assert.equal(
        (await ok(a, wordy, "GET", `/api/v2/filters/${filters[1].id}`)).title,
        "words",
        "nothing of the refused update was written",
      );
      // Removing one makes room again.
      const [first] = await ok(a, wordy, "GET", `/api/v2/filters/${filters[0].id}/keywords`);
      await ok(a, wordy, "DELETE", `/api/v2/filters/keywords/${first.id}`);
      await ok(a, wordy, "POST", `/api/v2/filters/${filters[0].id}/keywords`, { keyword: "fits" });
    });

    await t.step("scopes: read:filters reads, write:filters writes, no token is 401", async () => {
      const reader = await createUser(a, "reader", { scopes: ["read:filters"] });
      const writer = await createUser(a, "writer", { scopes: ["write:filters"] });
      const other = await createUser(a, "other", { scopes: ["read:statuses", "write:statuses"] });
      assert.equal((await call(a, reader, "GET", "/api/v2/filters")).status, 200);
      assert.equal((await call(a, reader, "GET", "/api/v1/filters")).status, 200);
      const body = { title: "t", context: ["home"], phrase: "p" };
      assert.equal((await call(a, reader, "POST", "/api/v2/filters", body)).status, 403);
      assert.equal((await call(a, reader, "POST", "/api/v1/filters", body)).status, 403);
      assert.equal((await call(a, writer, "POST", "/api/v2/filters", body)).status, 200);
      assert.equal((await call(a, writer, "GET", "/api/v2/filters")).status, 403);
      assert.equal((await call(a, other, "GET", "/api/v2/filters")).status, 403);
      assert.equal((await call(a, null, "GET", "/api/v2/filters")).status, 401);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
