/**
 * Shared helpers of the web app's Chromium tests (design 35 §16): a person
 * signs up and signs in through the forms, browser contexts with or without
 * JavaScript at a width, scheme and motion preference, waiting for the
 * script's ready marker (never a sleep), console watching for CSP and
 * Trusted Types refusals, and the audit of an app page: screenshots at 390
 * dark and 1280 light (tests/artifacts/app/<db>/) and axe with nothing
 * serious. Every wait is on a DOM state or a navigation.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DB_KIND, type TestInstance } from "../harness.ts";
import { BROWSER_SKIPPED, launchBrowser, signInWithForm } from "../fixtures/browser.ts";
import { axeFindings } from "./page_checks.ts";

export const APP_ARTIFACTS = new URL(`../artifacts/app/${DB_KIND}/`, import.meta.url).pathname;
export const PASSWORD = "a long enough password";

export interface AppContextOptions {
  js: boolean;
  width?: number;
  scheme?: "light" | "dark";
  reducedMotion?: "reduce" | "no-preference";
}

/** A fresh browser context, its script on or off, no CSP bypass. */
export async function appContext(
  browser: Browser,
  options: AppContextOptions,
): Promise<BrowserContext> {
  return await browser.newContext({
    javaScriptEnabled: options.js,
    viewport: { width: options.width ?? 1280, height: 900 },
    colorScheme: options.scheme ?? "light",
    reducedMotion: options.reducedMotion ?? "no-preference",
    ignoreHTTPSErrors: true,
  });
}

/**
 * The console's security refusals on a page (CSP, Trusted Types) and its
 * uncaught errors: the list the tests assert empty at the end.
 */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    const text = message.text();
    if (
      message.type() === "error" &&
      /Content Security Policy|TrustedHTML|Trusted Type|trusted-types/i.test(text)
    ) problems.push(text);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

/** Waits until the app's script has booted on the page (its marker on <html>). */
export async function scriptReady(page: Page): Promise<void> {
  await page.waitForSelector("html.js[data-ready='1']", { state: "attached" });
}

/** Waits until the page's live socket has subscribed (the script's marker). */
export async function streamOpen(page: Page): Promise<void> {
  await page.waitForSelector("html[data-stream='open']", { state: "attached" });
}

/** Signs up through /auth/sign_up, then signs in through /auth/sign_in and lands on Home. */
export async function signUpAndSignIn(
  page: Page,
  instance: TestInstance,
  name: string,
): Promise<void> {
  await page.goto(`${instance.origin}/auth/sign_up`);
  await page.fill("#username", name);
  await page.fill("#email", `${name}@example.com`);
  await page.fill("#password", PASSWORD);
  await page.fill("#password_confirmation", PASSWORD);
  await page.check("#agreement");
  await Promise.all([page.waitForNavigation(), page.click("main button[type=submit]")]);
  await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/`);
  await signInWithForm(page, name, PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/");
  assert.equal(await page.textContent("h1"), "Home");
}

/** Clicks and waits for the navigation it causes (the no-script way of every action). */
export async function clickAndNavigate(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

/**
 * Screenshots of the page's URL at 390 dark and 1280 light
 * (`<name>-<width>-<scheme>.png`, to look at) and axe with no serious or
 * critical finding at each, no horizontal overflow. The audit runs in a
 * fresh context with the page's cookies and the script on: axe needs
 * JavaScript, and a page without it is the same HTML less the script's
 * additions.
 */
export async function auditApp(page: Page, name: string): Promise<void> {
  await Deno.mkdir(APP_ARTIFACTS, { recursive: true });
  const cookies = await page.context().cookies();
  for (const [width, scheme] of [[390, "dark"], [1280, "light"]] as const) {
    const context = await appContext(page.context().browser()!, { js: true, width, scheme });
    try {
      await context.addCookies(cookies);
      const audited = await context.newPage();
      await audited.goto(page.url());
      await scriptReady(audited);
      await audited.screenshot({ path: `${APP_ARTIFACTS}${name}-${width}-${scheme}.png` });
      const overflow = await audited.evaluate(
        "document.documentElement.scrollWidth > document.documentElement.clientWidth",
      );
      assert.equal(overflow, false, `${name} at ${width}: no horizontal overflow`);
      const { violations, passes } = await axeFindings(audited);
      assert.ok(passes > 5, `${name}: axe ran ${passes} checks`);
      assert.deepEqual(violations, [], `${name} at ${width}: ${violations.join("\n")}`);
    } finally {
      await context.close();
    }
  }
}

/**
 * Writes `index.html` beside the screenshots of this database's run: every
 * PNG with its name, for the reviewer to look through in one page.
 */
export async function writeContactSheet(): Promise<void> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(APP_ARTIFACTS)) {
      if (entry.isFile && entry.name.endsWith(".png")) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const figures = names.sort().map((name) =>
    `<figure><img src="${name}" alt="${name}" width="390"><figcaption>${name}</figcaption></figure>`
  ).join("\n");
  await Deno.writeTextFile(
    `${APP_ARTIFACTS}index.html`,
    `<!doctype html><meta charset="utf-8"><title>Web app screenshots (${DB_KIND})</title>\n${figures}\n`,
  );
}

/**
 * One browser for all the tests of a file (CI time): `test` runs a Deno test
 * with it, launched on first use; `close` (in the file's afterAll) ends it.
 * Skipped, like browserTest, where there is no Chromium outside CI.
 */
export function sharedBrowser(): {
  test(name: string, fn: (browser: Browser) => Promise<void>): void;
  close(): Promise<void>;
} {
  let launched: Promise<Browser> | null = null;
  return {
    test(name, fn) {
      Deno.test({
        name: `[${DB_KIND}] ${name}`,
        ignore: BROWSER_SKIPPED,
        sanitizeOps: false,
        sanitizeResources: false,
        async fn() {
          launched ??= launchBrowser();
          await fn(await launched);
        },
      });
    },
    async close() {
      if (launched) await (await launched).close();
    },
  };
}

/** Signs an existing account in through the form (no sign-up) and lands on Home. */
export async function signIn(
  page: Page,
  instance: TestInstance,
  name: string,
  password: string,
): Promise<void> {
  await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/`);
  await signInWithForm(page, name, password);
  assert.equal(new URL(page.url()).pathname, "/");
}
