/**
 * The benchmark's fixed-rate generator (bench/paced.ts): it must count
 * latency from each request's due time and count failures, or the
 * benchmark's latency figures mean nothing.
 */
import assert from "node:assert/strict";
import { paced, percentile } from "../../bench/paced.ts";

Deno.test("percentile picks the sample below which the fraction falls", () => {
  const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentile(sorted, 0.5), 5);
  assert.equal(percentile(sorted, 0.99), 10);
  assert.equal(percentile([], 0.5), 0);
});

Deno.test("paced requests are spread over the run, slow answers show in the latency, failures are counted", async () => {
  let served = 0;
  const arrivals: number[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    arrivals.push(performance.now());
    served++;
    if (new URL(req.url).searchParams.has("fail") && served % 2 === 0) {
      return new Response("no", { status: 500 });
    }
    await new Promise((r) => setTimeout(r, 40));
    return new Response("ok");
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const result = await paced({ url, headers: {}, rate: 20, seconds: 1 });
    assert.equal(result.errors, 0);
    assert.equal(served, 20);
    // Every answer took at least 40 ms after it was due.
    assert(result.p50 >= 40, `p50 ${result.p50}`);
    // Evenly spaced, not a burst: the 20 arrivals span most of the second.
    assert(arrivals[19] - arrivals[0] >= 800, `span ${arrivals[19] - arrivals[0]} ms`);

    served = 0;
    const failing = await paced({ url: `${url}?fail`, headers: {}, rate: 20, seconds: 0.5 });
    assert.equal(failing.errors, 5);
  } finally {
    await server.shutdown();
  }
});
