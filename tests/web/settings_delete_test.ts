/**
 * /settings/delete (web/routes/settings/deletion.tsx), on two Rookery
 * instances over https: erin on A, followed by fred on B, deletes her
 * account in Chromium with her password (two-factor sign-in on: the
 * password is enough, as Mastodon). Then her browser is signed out, every
 * other session and her API token are gone (401), she cannot sign in, the
 * name cannot be registered again (POST /api/v1/accounts and the web
 * sign-up, in any case), and B hears the Delete: its copy of erin is
 * deleted and fred follows her no more. Before that, the hostile cases:
 * forged and anonymous posts (403) and a wrong password (422) delete
 * nothing. The page passes axe at phone and desktop width (screenshots in
 * tests/artifacts/web/). Without Chromium the deletion goes over HTTP.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, follows, users } from "../../db/schema/mod.ts";
import { test } from "../harness.ts";
import { closeAll, followRemote, startPair } from "../fixtures/federation.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { CHROMIUM_PATH, launchBrowser, signInWithForm } from "../fixtures/browser.ts";
import { includes, signInOverHttp } from "../admin_web/http_session.ts";
import { appToken, signUp, signUpForm } from "../accounts/helpers.ts";
import { openForm } from "./helpers.ts";
import { checkOpenPage } from "./page_checks.ts";

const chromiumPresent = (() => {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
})();

test("deleting an account on /settings/delete", async (t) => {
  const { a, b } = await startPair();
  try {
    const dbA = a.rookery.ctx.database.db;
    const erin = await createUser(a, "erin");
    const fred = await createUser(b, "fred");
    const erinOnB = await followRemote(b, fred, a, erin);
    const other = await signInOverHttp(a, "erin", "/settings/delete");
    const verify = async () => {
      const res = await a.request("/api/v1/accounts/verify_credentials", {
        headers: { authorization: `Bearer ${erin.token}` },
      });
      await res.body?.cancel();
      return res.status;
    };
    const deletedAt = async () => {
      const [row] = await dbA.select({ at: accounts.deletedAt }).from(accounts)
        .where(eq(accounts.id, erin.id));
      return row.at;
    };

    await t.step("forged, anonymous and wrong-password posts delete nothing", async () => {
      const page = await other.get("/settings/delete");
      assert.equal(page.status, 200);
      includes(await page.text(), `@erin@${a.domain}`);
      const forged = await other.post("/settings/delete", {
        password: TEST_PASSWORD,
        authenticity_token: "forged",
      });
      assert.equal(forged.status, 403);
      await forged.body?.cancel();
      const anonymous = await a.request("/settings/delete", {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ password: TEST_PASSWORD }),
      });
      assert.equal(anonymous.status, 403);
      await anonymous.body?.cancel();
      for (const password of ["wrong password", "", "x".repeat(10_000)]) {
        const wrong = await other.post("/settings/delete", { password });
        assert.equal(wrong.status, 422);
        includes(
          await wrong.text(),
          password ? "Password is invalid" : "Password can&#39;t be blank",
        );
      }
      assert.equal(await deletedAt(), null);
      assert.equal(await verify(), 200);
    });

    await t.step(
      "erin deletes her account (two-factor sign-in on: the password suffices)",
      async () => {
        const deleteIn = async (): Promise<void> => {
          if (!chromiumPresent) {
            await dbA.update(users).set({ otpRequiredForLogin: true })
              .where(eq(users.id, erin.userId));
            const res = await other.post("/settings/delete", { password: TEST_PASSWORD });
            assert.equal(res.status, 200);
            includes(await res.text(), "was deleted");
            return;
          }
          const browser = await launchBrowser();
          try {
            const context = await browser.newContext({ ignoreHTTPSErrors: true });
            const page = await context.newPage();
            await page.goto(`${a.origin}/settings/delete`);
            await signInWithForm(page, "erin", TEST_PASSWORD);
            assert.equal(new URL(page.url()).pathname, "/settings/delete");
            await checkOpenPage(page, `${a.origin}/settings/delete`, "settings_delete_erin");
            // Turned on after signing in (the sign-in would ask for a code).
            await dbA.update(users).set({ otpRequiredForLogin: true })
              .where(eq(users.id, erin.userId));
            await page.fill("#password", TEST_PASSWORD);
            await Promise.all([page.waitForNavigation(), page.click(".delete-account button")]);
            assert.equal(await page.textContent("h1"), "Account deleted");
            const cookies = await context.cookies();
            assert.ok(!cookies.some((c) => c.name === "_rookery_session"), "signed out");
            await page.goto(`${a.origin}/settings/delete`);
            assert.equal(new URL(page.url()).pathname, "/auth/sign_in");
          } finally {
            await browser.close();
          }
        };
        await deleteIn();
        assert.ok(await deletedAt());
      },
    );

    await t.step("signed out everywhere, token 401, no sign-in", async () => {
      const page = await other.get("/settings/delete");
      assert.equal(page.status, 303);
      includes(page.headers.get("location")!, "/auth/sign_in");
      assert.equal(await verify(), 401);
      await assert.rejects(() => signInOverHttp(a, "erin", "/settings/delete"), /sign-in of erin/);
    });

    await t.step("the name cannot be registered again", async () => {
      const { token } = await appToken(a);
      for (const name of ["erin", "ERIN"]) {
        const res = await signUp(a, token, signUpForm(name, { email: `${name}2@example.com` }));
        assert.equal(res.status, 422, name);
        const body = await res.json();
        assert.equal(body.details?.username?.[0]?.error, "ERR_TAKEN", JSON.stringify(body));
      }
      const form = await openForm(a, "/auth/sign_up");
      const web = await form.post("/auth/sign_up", {
        username: "erin",
        email: "erin3@example.com",
        password: "a long enough password",
        password_confirmation: "a long enough password",
        agreement: "1",
      });
      assert.equal(web.status, 422);
      includes(await web.text(), "Username is already taken");
    });

    await t.step(
      "B hears the Delete: its copy of erin is gone, fred follows her no more",
      async () => {
        const dbB = b.rookery.ctx.database.db;
        await eventually("erin deleted on B", async () => {
          const [row] = await dbB.select({ at: accounts.deletedAt }).from(accounts)
            .where(eq(accounts.id, erinOnB));
          return row.at;
        });
        const kept = await dbB.select().from(follows).where(
          and(eq(follows.accountId, fred.id), eq(follows.targetAccountId, erinOnB)),
        );
        assert.equal(kept.length, 0);
      },
    );
  } finally {
    await closeAll(a, b);
  }
});
