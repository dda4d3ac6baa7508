/**
 * The data settings pages (issue 20) over HTTP, signed in through the
 * sign-in form: each CSV export's exact text for a seeded user; an import of
 * each kind in merge and overwrite mode, applied by the queued job (the
 * relationships seen through the API, the progress on the page); bad files
 * refused with a reason (422/413, never 500); someone else's import → 404;
 * no session → the sign-in form; a POST without the form token → 403.
 * Across instances: the follows exported on A, imported on B, and B's user
 * follows the same accounts (relationships on B).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { eq } from "drizzle-orm";
import { accountDomainBlocks, dataImports } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { test, type TestInstance } from "../harness.ts";
import { callJson, ok, postStatus, relationship } from "../fixtures/api.ts";
import { createUser, TEST_PASSWORD, type TestUser } from "../fixtures/users.ts";
import { CHROMIUM_PATH, launchBrowser, signInWithForm } from "../fixtures/browser.ts";
import { closeAll, startPair } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { type PageSession, signInOverHttp } from "../admin_web/http_session.ts";

const chromiumPresent = (() => {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
})();

/** Where the browser step saves its screenshots (TEST_ARTIFACTS_DIR, else a temporary directory). */
const ARTIFACTS = Deno.env.get("TEST_ARTIFACTS_DIR") ??
  await Deno.makeTempDir({ prefix: "rookery-artifacts-" });

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in ${JSON.stringify(text)}`);
}

/** Uploads `csv` (or raw bytes) as an import; returns the raw response. */
async function upload(
  instance: TestInstance,
  session: PageSession,
  fields: Record<string, string>,
  file?: string | Uint8Array,
  token = session.token,
): Promise<Response> {
  const form = new FormData();
  form.set("authenticity_token", token);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (file !== undefined) {
    form.set("data", new File([file as BlobPart], "data.csv", { type: "text/csv" }));
  }
  return await instance.request("/settings/import", {
    method: "POST",
    headers: { cookie: session.cookie },
    body: form,
    redirect: "manual",
  });
}

/** Imports `csv` and waits until the job finished; returns the import's row. */
async function importCsv(
  instance: TestInstance,
  session: PageSession,
  type: string,
  mode: "merge" | "overwrite",
  csv: string,
) {
  const res = await upload(instance, session, { type, mode }, csv);
  const body = await res.text();
  assert.equal(res.status, 303, body);
  const id = res.headers.get("location")!.match(/^\/settings\/imports\/(\d+)$/)![1];
  const db = instance.rookery.ctx.database.db;
  return await eventually(`import ${type} ${mode} finished`, async () => {
    const [row] = await db.select().from(dataImports).where(eq(dataImports.id, id));
    return row.state === "finished" ? row : null;
  }, 60_000);
}

async function download(session: PageSession, path: string) {
  const res = await session.get(path);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
  includes(res.headers.get("content-disposition")!, "attachment; filename=");
  return await res.text();
}

test("settings data: CSV export and import", async (t) => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const carol = await createUser(a, "carol");
    const dave = await createUser(a, "dave");
    const erin = await createUser(a, "erin");
    const ed = await insertRemoteAccount(a, "ed", "far.example");
    const A = a.domain;

    // alice's data, made through the API.
    await ok(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`, {
      reblogs: false,
      notify: true,
      languages: ["en", "fr"],
    });
    await ok(a, alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
    await ok(a, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    const list = await ok(a, alice, "POST", "/api/v1/lists", { title: "Friends, close" });
    await ok(a, alice, "POST", `/api/v1/lists/${list.id}/accounts`, {
      account_ids: [bob.id, carol.id],
    });
    await ok(a, alice, "POST", `/api/v1/accounts/${dave.id}/block`);
    await ok(a, alice, "POST", `/api/v1/accounts/${ed}/mute`, { notifications: false });
    await ok(a, alice, "POST", "/api/v1/domain_blocks", { domain: "evil.example" });
    const post = await postStatus(a, bob, "Worth keeping");
    await ok(a, alice, "POST", `/api/v1/statuses/${post.id}/bookmark`);

    const aliceSession = await signInOverHttp(a, "alice", "/settings/export");

    await t.step("each export is Mastodon's CSV", async () => {
      const page = await aliceSession.get("/settings/export");
      assert.equal(page.status, 200);
      const html = await page.text();
      includes(html, 'href="/settings/exports/follows.csv"');
      assert.match(html, /export-follows"><th scope="row">Follows<\/th><td class="count">2</);
      assert.equal(
        await download(aliceSession, "/settings/exports/follows.csv"),
        "Account address,Show boosts,Notify on new posts,Languages\n" +
          `bob@${A},false,true,"en, fr"\ncarol@${A},true,false,\n`,
      );
      assert.equal(
        await download(aliceSession, "/settings/exports/followers.csv"),
        `Account address\nbob@${A}\n`,
      );
      assert.equal(
        await download(aliceSession, "/settings/exports/lists.csv"),
        `"Friends, close",bob@${A}\n"Friends, close",carol@${A}\n`,
      );
      assert.equal(await download(aliceSession, "/settings/exports/blocks.csv"), `dave@${A}\n`);
      assert.equal(
        await download(aliceSession, "/settings/exports/mutes.csv"),
        "Account address,Hide notifications\ned@far.example,false\n",
      );
      assert.equal(
        await download(aliceSession, "/settings/exports/domain_blocks.csv"),
        "evil.example\n",
      );
      assert.equal(
        await download(aliceSession, "/settings/exports/bookmarks.csv"),
        `${post.uri}\n`,
      );
      // A trailing slash is ignored, as Rails does.
      const slash = await aliceSession.get("/settings/export/");
      assert.equal(slash.status, 200);
      includes(await slash.text(), "<h1>Export</h1>");
      const unknown = await aliceSession.get("/settings/exports/passwords.csv");
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
    });

    await t.step("no session: the sign-in form; a POST without the form token: 403", async () => {
      const res = await a.request("/settings/exports/follows.csv", { redirect: "manual" });
      assert.equal(res.status, 303);
      assert.equal(
        res.headers.get("location"),
        "/auth/sign_in?redirect_to=%2Fsettings%2Fexports%2Ffollows.csv",
      );
      for (const path of ["/settings/import", "/settings/import/", "/settings/imports/1"]) {
        const res = await a.request(path, { redirect: "manual" });
        assert.equal(res.status, 303, path);
        await res.body?.cancel();
      }
      const anonymous = await a.request("/settings/import", {
        method: "POST",
        body: new URLSearchParams({ type: "blocking" }),
        redirect: "manual",
      });
      assert.equal(anonymous.status, 403);
      await anonymous.body?.cancel();
      for (const token of ["", "forged"]) {
        const res = await upload(a, aliceSession, { type: "blocking" }, "dave@x", token);
        assert.equal(res.status, 403);
        await res.body?.cancel();
      }
      const db = a.rookery.ctx.database.db;
      assert.equal((await db.select().from(dataImports)).length, 0, "nothing recorded");
    });

    const erinSession = await signInOverHttp(a, "erin", "/settings/import");
    const rel = (id: string) => relationship(a, erin, id);

    await t.step("blocking and muting: merge, then overwrite", async () => {
      await ok(a, erin, "POST", `/api/v1/accounts/${carol.id}/block`);
      let row = await importCsv(a, erinSession, "blocking", "merge", `bob@${A}\nnobody@${A}\n`);
      assert.deepEqual([row.totalRows, row.processedRows, row.failedRows], [2, 2, 1]);
      assert.equal((await rel(bob.id)).blocking, true);
      assert.equal((await rel(carol.id)).blocking, true, "merge keeps what the file omits");
      const page = await (await erinSession.get(`/settings/imports/${row.id}`)).text();
      includes(page, '<td class="progress">2 / 2</td><td class="failed">1</td>');
      includes(page, "Finished");
      row = await importCsv(a, erinSession, "blocking", "overwrite", `@dave@${A}\n`);
      assert.equal(row.failedRows, 0);
      assert.equal((await rel(dave.id)).blocking, true);
      assert.equal((await rel(bob.id)).blocking, false, "overwrite removes the rest");
      assert.equal((await rel(carol.id)).blocking, false);

      await importCsv(
        a,
        erinSession,
        "muting",
        "merge",
        `Account address,Hide notifications\ncarol@${A},false\n`,
      );
      let r = await rel(carol.id);
      assert.deepEqual([r.muting, r.muting_notifications], [true, false]);
      await importCsv(a, erinSession, "muting", "overwrite", `dave@${A},true\n`);
      r = await rel(dave.id);
      assert.deepEqual([r.muting, r.muting_notifications], [true, true]);
      assert.equal((await rel(carol.id)).muting, false);
    });

    await t.step("domain blocks and bookmarks: merge, then overwrite", async () => {
      const domains = async () =>
        (await ok(a, erin, "GET", "/api/v1/domain_blocks")).slice().sort();
      let row = await importCsv(
        a,
        erinSession,
        "domain_blocking",
        "merge",
        "a.example\nnot a domain!\n",
      );
      assert.equal(row.failedRows, 1);
      assert.deepEqual(await domains(), ["a.example"]);
      await importCsv(a, erinSession, "domain_blocking", "merge", "b.example\n");
      assert.deepEqual(await domains(), ["a.example", "b.example"]);
      await importCsv(a, erinSession, "domain_blocking", "overwrite", "c.example\nb.example\n");
      assert.deepEqual(await domains(), ["b.example", "c.example"]);

      const other = await postStatus(a, carol, "Another one");
      const marked = async () =>
        (await ok(a, erin, "GET", "/api/v1/bookmarks")).map((s: { id: string }) => s.id).sort();
      row = await importCsv(a, erinSession, "bookmarks", "merge", `${post.uri}\nnot a uri\n`);
      assert.equal(row.failedRows, 1);
      assert.deepEqual(await marked(), [post.id]);
      await importCsv(a, erinSession, "bookmarks", "overwrite", `${other.uri}\n`);
      assert.deepEqual(await marked(), [other.id]);
    });

    await t.step("following and lists: merge, then overwrite", async () => {
      await importCsv(
        a,
        erinSession,
        "following",
        "merge",
        "Account address,Show boosts,Notify on new posts,Languages\n" +
          `bob@${A},false,true,"en, de"\n`,
      );
      let r = await rel(bob.id);
      assert.deepEqual([r.following, r.showing_reblogs, r.notifying], [true, false, true]);
      assert.deepEqual(r.languages, ["en", "de"]);
      // Without a header: the address alone (Mastodon's older files).
      await importCsv(a, erinSession, "following", "merge", `carol@${A}\n`);
      assert.equal((await rel(carol.id)).following, true);
      await importCsv(a, erinSession, "following", "overwrite", `carol@${A}\n`);
      assert.equal((await rel(bob.id)).following, false);
      r = await rel(carol.id);
      assert.deepEqual([r.following, r.showing_reblogs, r.notifying], [true, true, false]);

      const old = await ok(a, erin, "POST", "/api/v1/lists", { title: "Old" });
      const row = await importCsv(
        a,
        erinSession,
        "lists",
        "merge",
        `Pals,bob@${A}\nPals,carol@${A}\nPals,ghost@${A}\n`,
      );
      assert.equal(row.failedRows, 1);
      const titles = async () =>
        (await ok(a, erin, "GET", "/api/v1/lists")).map((l: { title: string }) => l.title).sort();
      assert.deepEqual(await titles(), ["Old", "Pals"]);
      const pals = (await ok(a, erin, "GET", "/api/v1/lists"))
        .find((l: { title: string }) => l.title === "Pals");
      const members = async () =>
        (await ok(a, erin, "GET", `/api/v1/lists/${pals.id}/accounts`))
          .map((m: { id: string }) => m.id).sort();
      assert.deepEqual(await members(), [bob.id, carol.id].sort());
      assert.equal((await rel(bob.id)).following, true, "a list member is followed first");
      await importCsv(a, erinSession, "lists", "overwrite", `Pals,carol@${A}\n`);
      assert.deepEqual(await titles(), ["Pals"]);
      assert.deepEqual(await members(), [carol.id]);
      const gone = await callJson(a, erin, "GET", `/api/v1/lists/${old.id}`);
      assert.equal(gone.status, 404);
    });

    await t.step("a large export is read in pages; a large import runs in batches", async () => {
      const frank = await createUser(a, "frank");
      const db = a.rookery.ctx.database.db;
      const domains = Array.from(
        { length: 1201 },
        (_, i) => `d${String(i).padStart(4, "0")}.example`,
      );
      await db.insert(accountDomainBlocks).values(
        domains.map((domain) => ({ id: newId(), accountId: frank.id, domain })),
      );
      const frankSession = await signInOverHttp(a, "frank", "/settings/export");
      const csv = await download(frankSession, "/settings/exports/domain_blocks.csv");
      assert.equal(csv, domains.map((d) => `${d}\n`).join(""));
      // 120 rows: three runs of the job (IMPORT_BATCH = 50), in overwrite mode.
      const kept = domains.slice(0, 120);
      const row = await importCsv(a, frankSession, "domain_blocking", "overwrite", kept.join("\n"));
      assert.deepEqual([row.totalRows, row.processedRows, row.failedRows], [120, 120, 0]);
      assert.deepEqual(row.rows, [], "a finished import drops the file's rows");
      const left = await db.select({ domain: accountDomainBlocks.domain })
        .from(accountDomainBlocks).where(eq(accountDomainBlocks.accountId, frank.id));
      assert.deepEqual(left.map((r) => r.domain).sort(), kept);
    });

    await t.step("bad files are refused with a reason, never a 500", async () => {
      const cases: [Record<string, string>, string | Uint8Array | undefined, number, string][] = [
        [{ type: "following", mode: "merge" }, undefined, 422, "Choose a CSV file"],
        [{ type: "passwords" }, "x@y", 422, "import type"],
        [{ type: "following", mode: "replace" }, "x@y", 422, "merge or overwrite"],
        [{ type: "following" }, "", 422, "Choose a CSV file"],
        [{ type: "following" }, "\n\n", 422, "no rows"],
        [{ type: "following" }, 'a@b,"unclosed\n', 422, "not a valid CSV"],
        [{ type: "following" }, new Uint8Array([0x61, 0, 0x62]), 422, "not a CSV file"],
        [{ type: "following" }, new Uint8Array([0xff, 0xfe, 0x41]), 422, "not UTF-8"],
        [{ type: "lists" }, `bob@${A}\n`, 422, "two columns"],
        [{ type: "blocking" }, "x@y.example\n".repeat(20_001), 422, "more than 20,000 rows"],
      ];
      for (const [fields, file, status, reason] of cases) {
        const res = await upload(a, erinSession, fields, file);
        const text = await res.text();
        assert.equal(res.status, status, `${JSON.stringify(fields)}: ${text.slice(0, 300)}`);
        includes(text, reason);
        includes(text, 'role="alert"');
      }
      const res = await upload(a, erinSession, { type: "domain_blocking" }, "x.example\n");
      assert.equal(res.status, 303);
      await res.body?.cancel();
      // An import waiting: another is refused until it finishes.
      const db = a.rookery.ctx.database.db;
      const waiting = [{
        id: newId(),
        accountId: dave.id,
        kind: "blocking",
        mode: "merge",
        rows: [["x@y.example"]],
        totalRows: 1,
      }];
      await db.insert(dataImports).values(waiting);
      const daveSession = await signInOverHttp(a, "dave", "/settings/import");
      const refused = await upload(a, daveSession, { type: "blocking" }, `bob@${A}\n`);
      assert.equal(refused.status, 422);
      includes(await refused.text(), "You have an import in progress");
      await db.update(dataImports).set({ state: "finished" })
        .where(eq(dataImports.id, waiting[0].id));
      const accepted = await upload(a, daveSession, { type: "blocking" }, `bob@${A}\n`);
      assert.equal(accepted.status, 303);
      await accepted.body?.cancel();
    });

    await t.step("someone else's import, or no such id: 404", async () => {
      const db = a.rookery.ctx.database.db;
      const [theirs] = await db.select().from(dataImports)
        .where(eq(dataImports.accountId, erin.id)).limit(1);
      for (const id of [theirs.id, "99999999999", "abc"]) {
        const res = await aliceSession.get(`/settings/imports/${id}`);
        assert.equal(res.status, 404);
        const text = await res.text();
        assert.ok(!text.includes("/ "), "no progress shown");
      }
      const mine = await erinSession.get(`/settings/imports/${theirs.id}`);
      assert.equal(mine.status, 200);
      await mine.body?.cancel();
    });

    await t.step({
      name: "in Chromium: the upload form runs an import and shows its progress",
      ignore: !chromiumPresent,
      fn: async () => {
        const gina = await createUser(a, "gina");
        const browser = await launchBrowser();
        try {
          const context = await browser.newContext({ ignoreHTTPSErrors: true });
          const page = await context.newPage();
          await page.goto(`${a.origin}/settings/import`);
          await signInWithForm(page, "gina", TEST_PASSWORD);
          assert.equal(new URL(page.url()).pathname, "/settings/import");
          await page.selectOption("#import-type", "muting");
          await page.setInputFiles("#import-data", {
            name: "muted_accounts.csv",
            mimeType: "text/csv",
            buffer: Buffer.from(
              `Account address,Hide notifications\nbob@${A},false\nghost@${A},true\n`,
            ),
          });
          await page.check("input[name=mode][value=overwrite]");
          await Promise.all([page.waitForNavigation(), page.click(".import-form button")]);
          assert.match(new URL(page.url()).pathname, /^\/settings\/imports\/\d+$/);
          await eventually("the page shows the import finished", async () => {
            await page.reload();
            return (await page.textContent("td.state")) === "Finished";
          }, 60_000);
          assert.equal(await page.textContent("td.progress"), "2 / 2");
          assert.equal(await page.textContent("td.failed"), "1");
          const r = await relationship(a, gina, bob.id);
          assert.deepEqual([r.muting, r.muting_notifications], [true, false]);
          // Screenshots of each page at phone and desktop width, to look at.
          const statusPath = new URL(page.url()).pathname;
          for (
            const [name, path] of [
              ["export", "/settings/export"],
              ["import", "/settings/import"],
              ["import_status", statusPath],
            ]
          ) {
            for (const [width, height] of [[390, 844], [1280, 800]]) {
              await page.setViewportSize({ width, height });
              await page.goto(`${a.origin}${path}`);
              await page.screenshot({
                path: `${ARTIFACTS}/settings_${name}_${width}.png`,
                fullPage: true,
              });
            }
          }
        } finally {
          await browser.close();
        }
      },
    });

    await t.step("follows exported on A, imported on B, are followed from B", async () => {
      const csv = await download(aliceSession, "/settings/exports/follows.csv");
      const bea: TestUser = await createUser(b, "bea");
      const beaSession = await signInOverHttp(b, "bea", "/settings/import");
      const row = await importCsv(b, beaSession, "following", "merge", csv);
      assert.equal(row.failedRows, 0);
      for (const [who, reblogs, notify] of [[bob, false, true], [carol, true, false]] as const) {
        const found = await ok(b, bea, "GET", `/api/v1/accounts/lookup?acct=${who.username}@${A}`);
        const r = await eventually(
          `bea follows ${who.username}@${A}`,
          async () => {
            const r = await relationship(b, bea, found.id);
            return r.following ? r : null;
          },
          60_000,
        );
        assert.deepEqual([r.showing_reblogs, r.notifying], [reblogs, notify]);
      }
      // And A sees bea among bob's followers.
      const followers = await ok(a, bob, "GET", `/api/v1/accounts/${bob.id}/followers`);
      assert.ok(followers.some((f: { acct: string }) => f.acct === `bea@${b.domain}`));
    });
  } finally {
    await closeAll(a, b);
  }
});
