/**
 * The trends settings of config.ts: TRENDS_REVIEW (off by default) and
 * TRENDS_INTERVAL (60 seconds by default, 1 to 3600), refused when malformed.
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../config.ts";

Deno.test("TRENDS_REVIEW and TRENDS_INTERVAL: defaults, values, refusals", () => {
  assert.deepEqual(loadConfig({}).trends, { review: false, intervalMs: 60_000 });
  assert.deepEqual(loadConfig({ TRENDS_REVIEW: "true", TRENDS_INTERVAL: "5" }).trends, {
    review: true,
    intervalMs: 5_000,
  });
  assert.throws(() => loadConfig({ TRENDS_REVIEW: "maybe" }), ConfigError);
  for (const bad of ["0", "-5", "1.5", "soon", "3601"]) {
    assert.throws(
      () => loadConfig({ TRENDS_INTERVAL: bad }),
      (e: unknown) => e instanceof ConfigError && /TRENDS_INTERVAL/.test(e.message),
      bad,
    );
  }
});
