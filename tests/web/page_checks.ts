/**
 * What every web page's browser test checks besides its content: a
 * screenshot at phone width in the dark scheme and at desktop width in the
 * light one (tests/artifacts/web/<db>/, to look at), and axe-core on each
 * with no serious or critical violation, so both palettes are checked. The
 * pages are checked under the policy they are served with (axe is evaluated
 * through the browser's debugger, which the CSP does not govern).
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DB_KIND } from "../harness.ts";

export const ARTIFACTS = new URL(`../artifacts/web/${DB_KIND}/`, import.meta.url).pathname;
const AXE_SOURCE = await Deno.readTextFile(
  new URL(import.meta.resolve("axe-core/axe.min.js")).pathname,
);
const WIDTHS = [390, 1280] as const;
const schemeAt = (width: number) => width === 390 ? "dark" : "light";

/** The cookies of a signed-in context, for the fresh contexts of {@link checkPage}. */
export type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

/**
 * Runs axe-core on the page as it is: its serious and critical violations
 * (one line each: rule, then the elements) and how many checks passed. The
 * script is evaluated through the browser's debugger, which the page's CSP
 * does not govern.
 */
export async function axeFindings(page: Page): Promise<{ violations: string[]; passes: number }> {
  await page.evaluate(AXE_SOURCE);
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const result = await (globalThis as any).axe.run();
    return {
      // deno-lint-ignore no-explicit-any
      violations: result.violations.filter((v: any) =>
        v.impact === "serious" || v.impact === "critical"
        // deno-lint-ignore no-explicit-any
      ).map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.html).join(" | ")}`),
      passes: result.passes.length,
    };
  });
}

/** Saves `<name>-<width>.png` of the page as it is and asserts axe finds nothing serious. */
async function audit(page: Page, name: string, width: number): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}-${width}.png`, fullPage: true });
  const { violations, passes } = await axeFindings(page);
  // axe really looked (landmarks, contrast, labels...).
  assert.ok(passes > 5, `${name}: axe ran ${passes} checks`);
  assert.deepEqual(violations, [], `${name} at ${width}: ${violations.join("\n")}`);
}

/**
 * Opens `origin + path` at both widths in fresh contexts (signed in with
 * `cookies`), runs `prepare` (to show a page's error state, say), then
 * {@link audit}s it.
 */
export async function checkPage(
  browser: Browser,
  options: {
    origin: string;
    name: string;
    path: string;
    cookies?: Cookies;
    prepare?: (page: Page) => Promise<void>;
  },
): Promise<void> {
  for (const width of WIDTHS) {
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      colorScheme: schemeAt(width),
      ignoreHTTPSErrors: true,
    });
    try {
      if (options.cookies) await context.addCookies(options.cookies);
      const page = await context.newPage();
      await page.goto(`${options.origin}${options.path}`);
      assert.equal(new URL(page.url()).pathname, options.path.split("?")[0], "not redirected");
      await options.prepare?.(page);
      await audit(page, options.name, width);
    } finally {
      await context.close();
    }
  }
}

/** The same in a page the test already has: opens `url` at both widths. */
export async function checkOpenPage(page: Page, url: string, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: schemeAt(width) });
    const res = await page.goto(url);
    assert.equal(res?.status(), 200, url);
    await audit(page, name, width);
  }
}
