/**
 * What every settings page's browser test checks besides its content: a
 * screenshot at phone width in the dark scheme and at desktop width in the
 * light one (tests/artifacts/web/<db>/, to look at), and axe-core on each
 * with no serious or critical violation, so both palettes are checked.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DB_KIND } from "../harness.ts";

export const ARTIFACTS = new URL(`../artifacts/web/${DB_KIND}/`, import.meta.url).pathname;
const AXE_SOURCE = await Deno.readTextFile(
  new URL(import.meta.resolve("axe-core/axe.min.js")).pathname,
);

/** The cookies of a signed-in context, for the fresh contexts of {@link checkPage}. */
export type Cookies = Awaited<ReturnType<BrowserContext["cookies"]>>;

/**
 * Opens `origin + path` at both widths (signed in with `cookies`), runs
 * `prepare` (to show a page's error state, say), saves the screenshot
 * `<name>-<width>.png` and asserts axe found nothing serious.
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
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  for (const width of [390, 1280]) {
    // axe is injected as an inline script, which our CSP (rightly) refuses.
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      colorScheme: width === 390 ? "dark" : "light",
      bypassCSP: true,
      ignoreHTTPSErrors: true,
    });
    try {
      if (options.cookies) await context.addCookies(options.cookies);
      const page = await context.newPage();
      await page.goto(`${options.origin}${options.path}`);
      assert.equal(new URL(page.url()).pathname, options.path.split("?")[0], "not redirected");
      await options.prepare?.(page);
      await page.screenshot({ path: `${ARTIFACTS}${options.name}-${width}.png`, fullPage: true });
      await page.addScriptTag({ content: AXE_SOURCE });
      const { violations, passes } = await page.evaluate(async () => {
        // deno-lint-ignore no-explicit-any
        const result = await (globalThis as any).axe.run();
        return {
          // deno-lint-ignore no-explicit-any
          violations: result.violations.filter((v: any) =>
            v.impact === "serious" || v.impact === "critical"
          ).map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.html).join(" | ")}`),
          passes: result.passes.length,
        };
      });
      // axe really looked (landmarks, contrast, labels...).
      assert.ok(passes > 5, `${options.path}: axe ran ${passes} checks`);
      assert.deepEqual(violations, [], `${options.name} at ${width}: ${violations.join("\n")}`);
    } finally {
      await context.close();
    }
  }
}
