/**
 * The filters export and import (Mastodon 4.7):
 * /settings/exports/custom_filters.json gives the signed-in user's filters
 * in Mastodon's shape, statuses as URIs; the export page lists it with its
 * count; another user gets only theirs. The file imported (kind
 * custom_filters) merges by title (new keywords added, the status found by
 * its URI) or overwrites (every filter replaced); a file that is not one is
 * refused.
 */
import assert from "node:assert/strict";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser } from "../fixtures/users.ts";
import { type PageSession, signInOverHttp } from "../admin_web/http_session.ts";

async function importFilters(
  instance: TestInstance,
  session: PageSession,
  mode: "merge" | "overwrite",
  json: string,
): Promise<Response> {
  const form = new FormData();
  form.set("authenticity_token", session.token);
  form.set("type", "custom_filters");
  form.set("mode", mode);
  form.set("data", new File([json], "custom_filters.json", { type: "application/json" }));
  return await instance.request("/settings/import", {
    method: "POST",
    headers: { cookie: session.cookie },
    body: form,
    redirect: "manual",
  });
}

test("filters export and import: custom_filters.json", async () => {
  const instance = await startInstance();
  try {
    const [alice, { userId: bobId }] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
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

    // Bob imports Alice's file: merge into his own "Spoilers" and an "Other" filter.
    const exported = await (await session.get("/settings/exports/custom_filters.json")).text();
    const bobUser = { ...alice, token: await createToken(instance, bobId, ["read", "write"]) };
    await ok(instance, bobUser, "POST", "/api/v2/filters", {
      title: "Spoilers",
      context: ["home"],
      keywords_attributes: [{ keyword: "finale" }],
    });
    await ok(instance, bobUser, "POST", "/api/v2/filters", { title: "Other", context: ["home"] });
    const filtersOfBob = async () =>
      (await ok<any[]>(instance, bobUser, "GET", "/api/v2/filters"))
        .map((f) => ({
          title: f.title,
          keywords: f.keywords.map((k: any) => k.keyword).sort(),
          statuses: f.statuses.map((x: any) => x.status_id),
        }))
        .sort((a, b) => a.title.localeCompare(b.title));
    const waitFor = (wanted: unknown) =>
      eventually("the import applied", async () => {
        const now = await filtersOfBob();
        return JSON.stringify(now) === JSON.stringify(wanted) ? now : null;
      });
    const merged = await importFilters(instance, bob, "merge", exported);
    assert.equal(merged.status, 303, await merged.text());
    await waitFor([
      { title: "Other", keywords: [], statuses: [] },
      { title: "Spoilers", keywords: ["ending", "finale"], statuses: [status.id] },
    ]);
    const replaced = await importFilters(instance, bob, "overwrite", exported);
    assert.equal(replaced.status, 303);
    await replaced.body?.cancel();
    await waitFor([{ title: "Spoilers", keywords: ["ending", "finale"], statuses: [status.id] }]);
    const bad = await importFilters(instance, bob, "merge", '{"title":"not a list"}');
    assert.equal(bad.status, 422);
    assert.match(await bad.text(), /This is not a filters file/);
  } finally {
    await instance.close({ destroy: true });
  }
});
