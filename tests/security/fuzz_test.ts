/**
 * The fuzzer's short pass for CI: a few thousand seeded bodies (fuzz/) to
 * every write route of the API and to both inboxes, failing on any 5xx, failed connection or
 * answer slower than {@link SLOW_MS}. That bound is for runaway work (a body that makes a
 * route loop or parse for seconds), not a speed target: speed is the benchmark's, and this
 * runs beside three other test processes on two cores, where a loaded second is no finding
 * (`deno task fuzz` keeps its one-second bound). The seed is fixed, so a failure here replays
 * with `FUZZ_SEED=<seed> FUZZ_REPLAY=<index> deno task fuzz` (printed below).
 */
import assert from "node:assert/strict";
import { formatFailure, formatHistogram, runFuzz } from "../../fuzz/runner.ts";
import { startTarget } from "../../fuzz/target.ts";
import { test } from "../harness.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20_260_512);
const SLOW_MS = 5_000;

test("fuzz: seeded bodies to every write route and inbox get no 5xx and no slow answer", async (t) => {
  const target = await startTarget();
  try {
    await t.step("API write routes", async () => {
      const result = await runFuzz(target, {
        seed: SEED,
        slowMs: SLOW_MS,
        count: 1500,
        filter: /^(POST|PUT|PATCH|DELETE) \/(api|oauth|auth)\//,
      });
      assert.equal(result.sent, 1500);
      assert.ok(result.histogram.size >= 80, `${result.histogram.size} routes fuzzed`);
      assert.equal(
        result.failures.length,
        0,
        result.failures.map(formatFailure).join("\n") + formatHistogram(result, "statuses"),
      );
    });
    await t.step("inboxes, signed and unsigned", async () => {
      const result = await runFuzz(target, {
        seed: SEED,
        slowMs: SLOW_MS,
        count: 400,
        filter: /inbox/,
      });
      assert.equal(result.sent, 400);
      assert.equal(result.failures.length, 0, result.failures.map(formatFailure).join("\n"));
    });
  } finally {
    await target.close();
  }
});
