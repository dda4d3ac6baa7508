/**
 * The checks every settings page gets in the browser tests: a screenshot at
 * phone width (dark scheme) and desktop width (light scheme), saved under
 * tests/artifacts/web/<db>/ to look at, and axe-core with no serious or
 * critical violation in either palette. The page's context must be made
 * with `bypassCSP: true`: axe is injected as an inline script, which our
 * CSP (rightly) refuses.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DB_KIND } from "../harness.ts";

export const ARTIFACTS = new URL(`../artifacts/web/${DB_KIND}/`, import.meta.url).pathname;

const AXE_SOURCE = await Deno.readTextFile(
  new URL(import.meta.resolve("axe-core/axe.min.js")).pathname,
);

/** Opens `url` at both widths in `page`, saves `<name>-<width>.png` and runs axe on each. */
export async function checkPage(page: Page, url: string, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: width === 390 ? "dark" : "light" });
    const res = await page.goto(url);
    assert.equal(res?.status(), 200, url);
    await page.screenshot({ path: `${ARTIFACTS}${name}-${width}.png`, fullPage: true });
    await page.addScriptTag({ content: AXE_SOURCE });
    const { violations, passes } = await page.evaluate(async () => {
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
    // axe really looked (it checks landmarks, contrast, names...).
    assert.ok(passes > 5, `${url}: axe ran ${passes} checks`);
    assert.deepEqual(violations, [], `${url} (${width}px): ${violations.join("\n")}`);
  }
}
