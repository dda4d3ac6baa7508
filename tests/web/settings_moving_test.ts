/**
 * The moving pages of the settings (web/routes/settings/moving.tsx), on two
 * Rookery instances over https: B's alice2 lists A's alice on
 * /settings/aliases, and alice moves to alice2 on /settings/migration; her
 * follower on B and her local follower on A end up following alice2. The
 * hostile cases: forged and anonymous posts (403), a blank, oversized,
 * unknown or own handle, a wrong password, a target that does not list her,
 * and a second move within 30 days. "Cancel redirect" lets her post again
 * and leaves the moved followers where they are; after the cooldown she may
 * move again. In Chromium: both pages pass axe at phone and desktop width
 * (screenshots in tests/artifacts/web/), and the buttons work.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { accountMoves, accounts } from "../../db/schema/mod.ts";
import { test } from "../harness.ts";
import { callJson, relationship } from "../fixtures/api.ts";
import { closeAll, followRemote, remoteId, startPair } from "../fixtures/federation.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { CHROMIUM_PATH, launchBrowser, signInWithForm } from "../fixtures/browser.ts";
import { includes, signInOverHttp } from "../admin_web/http_session.ts";
import { checkOpenPage } from "./page_checks.ts";
import { accountByHandle } from "../../federation/remote/move_accounts.ts";

const chromiumPresent = (() => {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
})();

test("moving through the settings pages: aliases, the move, cancel, cooldown", async (t) => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const dave = await createUser(a, "dave");
    const alice2 = await createUser(b, "alice2", { account: { displayName: "Alice, moved" } });
    const bob = await createUser(b, "bob");
    await createUser(b, "carol");
    const aliceOnB = await followRemote(b, bob, a, alice);
    const daveFollows = await callJson(a, dave, "POST", `/api/v1/accounts/${alice.id}/follow`);
    assert.equal(daveFollows.body.following, true);
    const aliceUri = `${a.origin}/users/alice`;
    const onB = await signInOverHttp(b, "alice2", "/settings/aliases");
    const onA = await signInOverHttp(a, "alice", "/settings/migration");
    const aliasesOf = async () => {
      const [row] = await b.rookery.ctx.database.db.select({ aka: accounts.alsoKnownAs })
        .from(accounts).where(eq(accounts.id, alice2.id));
      return row.aka;
    };
    const movedOf = async () =>
      (await callJson(a, alice, "GET", "/api/v1/accounts/verify_credentials")).body.moved ?? null;
    const move = (handle: string, password = TEST_PASSWORD) =>
      onA.post("/settings/migration", { handle, current_password: password });

    await t.step(
      "aliases: forged, blank, oversized, unknown and own handles are refused",
      async () => {
        const forged = await onB.post("/settings/aliases", {
          handle: `alice@${a.domain}`,
          authenticity_token: "forged",
        });
        assert.equal(forged.status, 403);
        await forged.body?.cancel();
        const anonymous = await b.request("/settings/aliases", {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ handle: `alice@${a.domain}` }),
        });
        assert.equal(anonymous.status, 403);
        await anonymous.body?.cancel();
        const cases: [string, string][] = [
          ["", "Handle can&#39;t be blank"],
          ["x".repeat(5000), "Handle is too long"],
          [`nobody@${a.domain}`, "Handle could not be found"],
          ["not a handle!", "Handle could not be found"],
          ["alice2", "Handle cannot be your own account"],
          [`@alice2@${b.domain}`, "Handle cannot be your own account"],
        ];
        for (const [handle, message] of cases) {
          const res = await onB.post("/settings/aliases", { handle });
          assert.equal(res.status, 422, handle);
          includes(await res.text(), message);
        }
        assert.deepEqual(await aliasesOf(), []);
      },
    );

    await t.step("aliases: alice2 lists alice@A; another is added and unlinked", async () => {
      const added = await onB.post("/settings/aliases", { handle: `@alice@${a.domain}` });
      assert.equal(added.status, 303);
      assert.equal(added.headers.get("location"), "/settings/aliases?notice=added");
      const page = await (await onB.get("/settings/aliases?notice=added")).text();
      includes(page, "The alias was created.");
      includes(page, `@alice@${a.domain}`);
      includes(page, aliceUri);
      // Adding it again changes nothing.
      const again = await onB.post("/settings/aliases", { handle: `alice@${a.domain}` });
      assert.equal(again.status, 303);
      await again.body?.cancel();
      const daveAdded = await onB.post("/settings/aliases", { handle: `dave@${a.domain}` });
      assert.equal(daveAdded.status, 303);
      await daveAdded.body?.cancel();
      assert.deepEqual(await aliasesOf(), [aliceUri, `${a.origin}/users/dave`]);
      for (const uri of ["", `${a.origin}/users/nobody`, "x".repeat(3000)]) {
        const res = await onB.post("/settings/aliases/remove", { uri });
        assert.equal(res.status, 404, uri);
        await res.body?.cancel();
      }
      const removed = await onB.post("/settings/aliases/remove", { uri: `${a.origin}/users/dave` });
      assert.equal(removed.status, 303);
      await removed.body?.cancel();
      assert.deepEqual(await aliasesOf(), [aliceUri]);
      // The actor document says so, for A to read.
      const doc = await (await b.request("/users/alice2", {
        headers: { Accept: "application/activity+json" },
      })).json();
      assert.ok([doc.alsoKnownAs].flat().includes(aliceUri), JSON.stringify(doc.alsoKnownAs));
    });

    await t.step(
      "migration: forged, wrong password, self, unknown, not aliased: refused",
      async () => {
        const forged = await onA.post("/settings/migration", {
          handle: `alice2@${b.domain}`,
          current_password: TEST_PASSWORD,
          authenticity_token: "forged",
        });
        assert.equal(forged.status, 403);
        await forged.body?.cancel();
        const wrong = await move(`alice2@${b.domain}`, "not my password");
        assert.equal(wrong.status, 422);
        const wrongHtml = await wrong.text();
        includes(wrongHtml, "Current password is invalid");
        assert.ok(!wrongHtml.includes("not my password"));
        const cases: [string, string][] = [
          ["alice", "Handle cannot be your own account"],
          [`alice@${a.domain}`, "Handle cannot be your own account"],
          [`nobody@${b.domain}`, "Handle could not be found"],
          [`bob@${b.domain}`, "must list this account as an alias"],
          ["", "Handle can&#39;t be blank"],
        ];
        for (const [handle, message] of cases) {
          const res = await move(handle);
          assert.equal(res.status, 422, handle);
          includes(await res.text(), message);
        }
        assert.equal(await movedOf(), null);
      },
    );

    await t.step("migration: alice moves; her followers on A and B follow alice2", async () => {
      const moved = await move(`@alice2@${b.domain}`);
      assert.equal(moved.status, 303);
      assert.equal(moved.headers.get("location"), "/settings/migration?notice=moved");
      const page = await (await onA.get("/settings/migration")).text();
      includes(page, "This account is redirecting to");
      includes(page, `@alice2@${b.domain}`);
      await eventually(
        "bob follows alice2",
        async () => (await relationship(b, bob, alice2.id)).following,
      );
      await eventually(
        "bob left alice",
        async () => !(await relationship(b, bob, aliceOnB)).following,
      );
      const alice2OnA = await remoteId(a, b, alice2);
      await eventually(
        "dave follows alice2",
        async () => (await relationship(a, dave, alice2OnA)).following,
      );
      assert.equal((await relationship(a, dave, alice.id)).following, false);
      assert.equal((await movedOf())?.acct, `alice2@${b.domain}`);
      const post = await callJson(a, alice, "POST", "/api/v1/statuses", { status: "still here?" });
      assert.equal(post.status, 403);
    });

    await t.step("a second move within 30 days is refused", async () => {
      const carolPages = await signInOverHttp(b, "carol", "/settings/aliases");
      const listed = await carolPages.post("/settings/aliases", { handle: `alice@${a.domain}` });
      assert.equal(listed.status, 303);
      await listed.body?.cancel();
      const res = await move(`carol@${b.domain}`);
      assert.equal(res.status, 422);
      includes(await res.text(), "this account moved less than 30 days ago");
      assert.equal((await movedOf())?.acct, `alice2@${b.domain}`);
    });

    await t.step("cancel redirect: alice posts again, her followers stay moved", async () => {
      const forged = await onA.post("/settings/migration/cancel", { authenticity_token: "x" });
      assert.equal(forged.status, 403);
      await forged.body?.cancel();
      assert.ok(await movedOf());
      const cancelled = await onA.post("/settings/migration/cancel");
      assert.equal(cancelled.status, 303);
      await cancelled.body?.cancel();
      assert.equal(await movedOf(), null);
      const page = await (await onA.get("/settings/migration?notice=cancelled")).text();
      includes(page, "The redirect was cancelled");
      assert.ok(!page.includes("This account is redirecting to"));
      const post = await callJson(a, alice, "POST", "/api/v1/statuses", { status: "back" });
      assert.equal(post.status, 200);
      assert.equal((await relationship(b, bob, alice2.id)).following, true);
      const doc = await (await a.request("/users/alice", {
        headers: { Accept: "application/activity+json" },
      })).json();
      assert.equal(doc.movedTo, undefined);
      // Her followers on B were moved, so no Update reaches B; when B fetches her
      // document again (as servers do), its copy of alice has not moved any more.
      assert.ok((await callJson(b, bob, "GET", `/api/v1/accounts/${aliceOnB}`)).body.moved);
      assert.ok(await accountByHandle(b.rookery.ctx, `alice@${a.domain}`, true));
      const seen = await callJson(b, bob, "GET", `/api/v1/accounts/${aliceOnB}`);
      assert.equal(seen.body.moved ?? null, null);
      // Still within the cooldown: cancelling does not reset it.
      const res = await move(`carol@${b.domain}`);
      assert.equal(res.status, 422);
      await res.body?.cancel();
    });

    await t.step("after 30 days alice may move again", async () => {
      const db = a.rookery.ctx.database.db;
      await db.update(accountMoves).set({ createdAt: sql`now() - interval '31 days'` })
        .where(eq(accountMoves.accountId, alice.id));
      const res = await move(`carol@${b.domain}`);
      assert.equal(res.status, 303);
      await res.body?.cancel();
      assert.equal((await movedOf())?.acct, `carol@${b.domain}`);
    });

    await t.step({
      name: "in Chromium: the pages pass axe, aliases are added and the redirect cancelled",
      ignore: !chromiumPresent,
      fn: async () => {
        const browser = await launchBrowser();
        try {
          const context = await browser.newContext({ ignoreHTTPSErrors: true });
          const page = await context.newPage();
          await page.goto(`${a.origin}/settings/aliases`);
          await signInWithForm(page, "alice", TEST_PASSWORD);
          assert.equal(new URL(page.url()).pathname, "/settings/aliases");
          await page.fill("#handle", `bob@${b.domain}`);
          await Promise.all([page.waitForNavigation(), page.click(".add-alias button")]);
          includes((await page.textContent("main"))!, "The alias was created.");
          includes((await page.textContent("table.aliases"))!, `@bob@${b.domain}`);
          await checkOpenPage(page, `${a.origin}/settings/aliases`, "settings_aliases");
          await checkOpenPage(page, `${a.origin}/settings/migration`, "settings_migration");
          includes((await page.textContent("main"))!, `@carol@${b.domain}`);
          await Promise.all([page.waitForNavigation(), page.click(".cancel-redirect button")]);
          includes((await page.textContent("main"))!, "The redirect was cancelled");
          assert.equal(await movedOf(), null);
          await checkOpenPage(page, `${a.origin}/settings/delete`, "settings_delete");
        } finally {
          await browser.close();
        }
      },
    });
  } finally {
    await closeAll(a, b);
  }
});
