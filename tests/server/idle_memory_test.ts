/**
 * Memory given back when idle (process/idle_memory.ts): a release runs on a
 * quiet tick only, once per regrowth, and its own CPU time does not count as
 * activity; in this runtime both steps (V8's full collection, glibc's
 * `malloc_trim`) are really available and run. The ticks are driven by hand
 * with stand-in figures: no timing.
 */
import assert from "node:assert/strict";
import { IdleMemoryRelease, type IdleProbes, processProbes } from "../../process/idle_memory.ts";
import { test } from "../harness.ts";

const MiB = 1024 * 1024;

/** Stand-in probes: the test sets the CPU time and RSS; a release costs `releaseCpu` µs. */
function probes(releaseCpu = 0) {
  const state = { cpu: 0, rss: 100 * MiB, releases: 0 };
  const p: IdleProbes = {
    steps: [{
      name: "stand-in",
      run: () => {
        state.releases++;
        state.cpu += releaseCpu;
        state.rss -= 20 * MiB;
      },
    }],
    cpuMicros: () => state.cpu,
    rss: () => state.rss,
  };
  return { state, p };
}

test("a quiet tick releases once; busy ticks and ticks without regrowth do not", () => {
  const { state, p } = probes();
  const idle = new IdleMemoryRelease(p);
  state.cpu += 1_000_000; // a busy tick: a second of CPU
  assert.equal(idle.tick(), false, "no release under load");
  state.cpu += 1_000; // quiet
  assert.equal(idle.tick(), true, "the first quiet tick releases");
  assert.equal(state.rss, 80 * MiB);
  assert.equal(idle.tick(), false, "not again without new memory");
  state.cpu += 1_000_000;
  state.rss += 4 * MiB;
  assert.equal(idle.tick(), false, "busy");
  assert.equal(idle.tick(), false, "quiet, but 4 MiB is not worth a collection");
  state.rss += 8 * MiB;
  assert.equal(idle.tick(), true, "quiet and regrown");
  assert.equal(state.releases, 2);
});

test("the release's own CPU time is not activity", () => {
  const { state, p } = probes(400_000);
  const idle = new IdleMemoryRelease(p);
  assert.equal(idle.tick(), true);
  state.rss += 10 * MiB;
  assert.equal(idle.tick(), true, "the 400 ms the release took do not make the next tick busy");
});

test("in this runtime the full collection and malloc_trim are available and run", () => {
  const real = processProbes();
  const names = real.steps.map((s) => s.name);
  assert.ok(names.includes("gc"), `steps: ${names}`);
  if (Deno.build.os === "linux" && Deno.build.env === "gnu") {
    assert.ok(names.includes("malloc_trim"), `steps: ${names}`);
  }
  for (const step of real.steps) step.run();
  assert.ok(real.rss() > 0 && real.cpuMicros() > 0);
});
