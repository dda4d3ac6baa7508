/**
 * Every family of HTML page on the one shell and stylesheet (web/pages/
 * shell.tsx, style.ts): public (landing, about, profile, thread, tag, a
 * 404, the embed), the account flow (sign-in, sign-up, password reset,
 * e-mail confirmation), OAuth (consent, code, error), settings (the password
 * asked again, 2FA, apps, sessions, export, import) and staff (dashboard, accounts, domain blocks,
 * roles, settings).
 *
 * Over HTTP: each links the one stylesheet and has no inline style or
 * script, and each kind sends its policy (page_response.ts): `style-src
 * 'self'`, no script, no framing but the embed's. The stylesheet is served
 * with a content hash and cached for a year.
 *
 * In headless Chromium, at phone and desktop width in the light and the dark
 * scheme, under the real CSP: no CSP refusal, the stylesheet applied (the
 * scheme's background), nothing wider than the screen, the skip link first
 * on Tab with a visible focus ring, an axe-core check (no serious or
 * critical violation), and a screenshot in tests/artifacts/pages/.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { users, webSessions } from "../../db/schema/mod.ts";
import { afterAll, DB_KIND, startInstance, test } from "../harness.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { browserTest } from "../fixtures/browser.ts";
import type { BrowserContext } from "playwright-core";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { registerApp } from "../oauth/helpers.ts";
import { STYLESHEET, STYLESHEET_HREF, STYLESHEET_PATH } from "../../web/pages/style.ts";
import { axeFindings } from "./page_checks.ts";

const instance = await startInstance({
  listen: true,
  env: {
    INSTANCE_TITLE: "Harbour Town",
    INSTANCE_DESCRIPTION: "A small server for people who sail.",
    REGISTRATIONS: "open",
  },
});
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;

const alice = await createUser(instance, "alice", {
  account: { displayName: "Alice Harbour", note: "<p>I sail <em>dinghies</em>.</p>" },
});
await db.update(users).set({ role: "owner" }).where(eq(users.id, alice.userId));
const root = await postStatus(instance, alice.token, "First light on the water #sailing");
const reply = await postStatus(instance, alice.token, "And then the tide turned.", {
  in_reply_to_id: root.id,
  spoiler_text: "A long story",
});
const app = await registerApp(instance, {
  client_name: "Harbour Reader",
  redirect_uris: "urn:ietf:wg:oauth:2.0:oob",
  scopes: "read write",
  website: "https://reader.example",
});
const authorize = `/oauth/authorize?${new URLSearchParams({
  client_id: app.client_id,
  redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
  response_type: "code",
  scope: "read write",
})}`;
const session = await signInOverHttp(instance, "alice", "/settings/sessions");

interface Family {
  name: string;
  path: string;
  status?: number;
  /** Seen by the signed-in owner (else by a visitor without a session). */
  signedIn?: boolean;
  /** The page other sites frame: no header, its own framing policy. */
  embed?: boolean;
  /** Puts the session in the state the page needs, before each visit. */
  prepare?: () => Promise<unknown>;
}

/** Whether the owner's session confirmed its password within the hour (2FA set-up). */
const challengePassed = (passed: boolean) =>
  db.update(webSessions).set({ challengePassedAt: passed ? new Date() : null })
    .where(eq(webSessions.userId, alice.userId));

const FAMILIES: Family[] = [
  { name: "landing", path: "/" },
  { name: "about", path: "/about" },
  { name: "profile", path: "/@alice" },
  { name: "thread", path: `/@alice/${reply.id}` },
  { name: "tag", path: "/tags/sailing" },
  { name: "not_found", path: "/@nobody", status: 404 },
  { name: "embed", path: `/@alice/${reply.id}/embed`, embed: true },
  { name: "sign_in", path: "/auth/sign_in" },
  { name: "sign_up", path: "/auth/sign_up" },
  { name: "password_reset", path: "/auth/password/new" },
  { name: "confirmation", path: "/auth/confirmation?confirmation_token=nope", status: 404 },
  { name: "oauth_error", path: "/oauth/authorize?client_id=nope", status: 400 },
  { name: "oauth_code", path: "/oauth/authorize/native?code=abc123" },
  { name: "oauth_authorize", path: authorize, signedIn: true },
  {
    name: "password_challenge",
    path: "/settings/otp_authentication",
    signedIn: true,
    prepare: () => challengePassed(false),
  },
  {
    name: "two_factor",
    path: "/settings/otp_authentication",
    signedIn: true,
    prepare: () => challengePassed(true),
  },
  { name: "applications", path: "/settings/applications", signedIn: true },
  { name: "sessions", path: "/settings/sessions", signedIn: true },
  { name: "export", path: "/settings/export", signedIn: true },
  { name: "import", path: "/settings/import", signedIn: true },
  { name: "admin_dashboard", path: "/admin", signedIn: true },
  { name: "admin_accounts", path: "/admin/accounts", signedIn: true },
  { name: "admin_domain_blocks", path: "/admin/domain_blocks", signedIn: true },
  { name: "admin_roles", path: "/admin/roles", signedIn: true },
  { name: "admin_settings", path: "/admin/settings", signedIn: true },
];

function includes(text: string, part: string, where: string): void {
  assert.ok(text.includes(part), `${where}: expected ${JSON.stringify(part)}`);
}

test("pages over HTTP: one stylesheet, no inline style or script, a strict policy", async (t) => {
  await t.step("every family links the one stylesheet and nothing inline", async () => {
    for (const family of FAMILIES) {
      await family.prepare?.();
      const res = family.signedIn
        ? await session.get(family.path)
        : await instance.request(family.path, { headers: { accept: "text/html" } });
      const html = await res.text();
      const where = family.name;
      assert.equal(res.status, family.status ?? 200, `${where}: ${html.slice(0, 500)}`);
      assert.ok(html.startsWith('<!DOCTYPE html><html lang="en">'), where);
      includes(html, '<meta name="viewport" content="width=device-width, initial-scale=1">', where);
      includes(html, `<link rel="stylesheet" href="${STYLESHEET_HREF}">`, where);
      assert.equal(html.split('rel="stylesheet"').length, 2, `${where}: one stylesheet`);
      includes(html, '<main id="content">', where);
      assert.doesNotMatch(html, /<style|<script|\sstyle=/i, where);
      if (!family.embed) includes(html, '<a class="skip" href="#content">', where);

      const csp = res.headers.get("content-security-policy") ?? "";
      includes(csp, "default-src 'none'", where);
      includes(csp, "style-src 'self'", where);
      includes(csp, "base-uri 'none'", where);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|script-src/, `${where}: ${csp}`);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", where);
      if (family.embed) {
        includes(csp, "frame-ancestors *", where);
        includes(csp, "form-action 'none'", where);
        assert.equal(res.headers.get("x-frame-options"), null, where);
      } else {
        includes(csp, "frame-ancestors 'none'", where);
        assert.equal(res.headers.get("x-frame-options"), "DENY", where);
      }
      if (family.signedIn || family.path.startsWith("/auth/") || family.name.startsWith("oauth")) {
        assert.equal(res.headers.get("cache-control"), "private, no-store", where);
      }
    }
  });

  await t.step(
    "the OAuth pages keep no form-action, so consent can redirect anywhere",
    async () => {
      const res = await session.get(authorize);
      await res.body?.cancel();
      assert.doesNotMatch(res.headers.get("content-security-policy")!, /form-action/);
    },
  );

  await t.step("the stylesheet: hashed URL cached for a year, others revalidated", async () => {
    const res = await instance.request(STYLESHEET_HREF);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const css = await res.text();
    assert.equal(css, STYLESHEET);
    assert.match(css, /@media \(prefers-color-scheme:dark\)/);
    const etag = res.headers.get("etag")!;
    assert.ok(etag);

    const again = await instance.request(STYLESHEET_HREF, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    await again.body?.cancel();
    for (const path of [STYLESHEET_PATH, `${STYLESHEET_PATH}?v=0123456789abcdef`]) {
      const other = await instance.request(path);
      assert.equal(other.status, 200, path);
      assert.equal(other.headers.get("cache-control"), "no-cache", path);
      assert.equal(await other.text(), STYLESHEET, path);
    }
  });
});

const ARTIFACTS = new URL(`../artifacts/pages/${DB_KIND}/`, import.meta.url).pathname;

type Scheme = "light" | "dark";

/** The body's background in each scheme (style.ts's --bg), proof the stylesheet applied. */
const BACKGROUND: Record<Scheme, string> = { light: "rgb(243, 244, 248)", dark: "rgb(23, 25, 31)" };
/** The embed page is transparent; its card carries --card. */
const CARD: Record<Scheme, string> = { light: "rgb(255, 255, 255)", dark: "rgb(34, 37, 45)" };

/** Opens one page in `context` and checks it; returns what is wrong (axe, CSP refusals). */
async function checkPage(
  context: BrowserContext,
  family: Family,
  width: number,
  scheme: Scheme,
): Promise<string[]> {
  const where = `${family.name} ${width}px ${scheme}`;
  await family.prepare?.();
  const tab = await context.newPage();
  const problems: string[] = [];
  tab.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) {
      problems.push(`${where}: ${message.text()}`);
    }
  });
  const res = await tab.goto(`${instance.origin}${family.path}`);
  assert.equal(res?.status(), family.status ?? 200, where);
  await tab.screenshot({
    path: `${ARTIFACTS}${family.name}-${width}-${scheme}.png`,
    fullPage: true,
  });

  // Functions given to evaluate run in the page (its globalThis is the window).
  const looks = await tab.evaluate(() => {
    const { document, getComputedStyle } = globalThis as any;
    const root = document.documentElement;
    const card = document.querySelector(".embed");
    return {
      background: getComputedStyle(document.body).backgroundColor as string,
      card: card ? getComputedStyle(card).backgroundColor as string : null,
      overflow: (root.scrollWidth - root.clientWidth) as number,
    };
  });
  if (family.embed) assert.equal(looks.card, CARD[scheme], where);
  else assert.equal(looks.background, BACKGROUND[scheme], where);
  assert.ok(looks.overflow <= 0, `${where}: ${looks.overflow}px wider than the screen`);

  if (!family.embed) {
    // The skip link comes first; the first Tab lands on it (or, on a page
    // that focuses its first field itself, moves on from there), and what
    // has the focus shows a ring.
    const autofocused = await tab.evaluate(() => {
      const { document } = globalThis as any;
      const first = document.querySelector("a[href], button, input, select, textarea");
      return first?.className === "skip" ? document.activeElement !== document.body : null;
    });
    assert.notEqual(autofocused, null, `${where}: the skip link is not the first control`);
    await tab.keyboard.press("Tab");
    const focus = await tab.evaluate(() => {
      const { document, getComputedStyle } = globalThis as any;
      const el = document.activeElement;
      const style = getComputedStyle(el);
      return {
        className: el.className as string,
        left: el.getBoundingClientRect().left as number,
        outline: `${style.outlineStyle} ${style.outlineWidth}`,
      };
    });
    if (!autofocused) {
      assert.equal(focus.className, "skip", where);
      assert.ok(focus.left >= 0, `${where}: the focused skip link is on screen`);
    }
    assert.equal(focus.outline, "solid 3px", where);
  }

  const { violations, passes } = await axeFindings(tab);
  // axe really looked (landmarks, contrast, names, labels...).
  assert.ok(passes > 5, `${where}: axe ran ${passes} checks`);
  for (const v of violations) problems.push(`${where}: ${v}`);
  await tab.close();
  return problems;
}

browserTest(
  "every page family: axe, keyboard, both schemes, phone and desktop",
  async (browser) => {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const [cookieName, ...rest] = session.cookie.split("=");
    const problems: string[] = [];
    const combinations = [390, 1280].flatMap((width) =>
      (["light", "dark"] as const).flatMap((scheme) =>
        [false, true].map((signedIn) => ({ width, scheme, signedIn }))
      )
    );
    for (const { width, scheme, signedIn } of combinations) {
      // No bypassCSP: the pages are checked under the policy they are served with.
      const context = await browser.newContext({
        viewport: { width, height: 860 },
        colorScheme: scheme,
      });
      if (signedIn) {
        await context.addCookies([{
          name: cookieName,
          value: rest.join("="),
          url: instance.origin,
        }]);
      }
      for (const family of FAMILIES.filter((f) => !!f.signedIn === signedIn)) {
        problems.push(...await checkPage(context, family, width, scheme));
      }
      await context.close();
    }
    assert.deepEqual(problems, []);
  },
);
