/**
 * Settings read by config.ts that need no running server: DB_POOL_SIZE
 * defaults to 10, takes a positive integer, and refuses anything else.
 */
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../config.ts";

Deno.test("DB_POOL_SIZE: default, a chosen size, and refused values", () => {
  assert.equal(loadConfig({}).dbPoolSize, 10);
  assert.equal(loadConfig({ DB_POOL_SIZE: "32" }).dbPoolSize, 32);
  for (const bad of ["0", "-1", "2.5", "many", "100000"]) {
    assert.throws(
      () => loadConfig({ DB_POOL_SIZE: bad }),
      (e: unknown) =>
        e instanceof ConfigError && /DB_POOL_SIZE must be an integer between 1 and 1000/.test(
          e.message,
        ),
      bad,
    );
  }
});
