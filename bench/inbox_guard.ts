/**
 * CPU per call of the inbox guard (federation/inbox/guard.ts) alone, on the
 * inbound bench's signed deliveries, its key cache warm, no database: the
 * request half of an inbound note without the queue. With the path of
 * another checkout as argument, that checkout's guard and this one's run
 * in turn (BENCH_ROUNDS rounds, default 3), each in its own process:
 *
 *   deno run -A bench/inbox_guard.ts /work/wt-base/
 *
 * Process CPU (all threads: Web Crypto answers from Deno's thread pool)
 * per call, after a warm-up; BENCH_GUARD_CALLS calls (default 3,000).
 */
import process from "node:process";
import { MemoryKvStore } from "@fedify/fedify";
import { getDocumentLoader } from "@fedify/vocab-runtime";
import { startInboundPeer } from "./inbound.ts";

const CALLS = Number(Deno.env.get("BENCH_GUARD_CALLS") ?? 3000);
const WARM_UP = 200;

/** µs of process CPU per guard call of the checkout at `root`. */
async function measure(root: string): Promise<number> {
  const { createInboxGuard } = await import(new URL("federation/inbox/guard.ts", root).href);
  const origin = "http://localhost";
  const inbound = await startInboundPeer(origin, "alice");
  try {
    const loader = getDocumentLoader({ allowPrivateAddress: true });
    const guard = createInboxGuard({
      origin,
      kv: new MemoryKvStore(),
      keyCachePrefix: ["key"],
      documentLoader: loader,
      contextLoader: loader,
    });
    const deliveries = await inbound.sign(WARM_UP + CALLS, "guard");
    const call = async (i: number) => {
      const { url, init } = deliveries[i];
      const passed = await guard(new Request(url, init));
      if (passed instanceof Response) throw new Error(`refused: ${passed.status}`);
      await passed.arrayBuffer();
    };
    for (let i = 0; i < WARM_UP; i++) await call(i);
    const before = process.cpuUsage();
    for (let i = WARM_UP; i < WARM_UP + CALLS; i++) await call(i);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / CALLS;
  } finally {
    await inbound.peer.close();
  }
}

if (import.meta.main) {
  const [other, only] = Deno.args;
  if (only === "--only") {
    console.log((await measure(new URL(other, "file:///").href)).toFixed(1));
  } else {
    const here = new URL("../", import.meta.url).href;
    const builds = other ? [other.endsWith("/") ? other : `${other}/`, here] : [here];
    const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
    for (let round = 1; round <= rounds; round++) {
      for (const build of builds) {
        const root = build.startsWith("file:") ? new URL(build).pathname : build;
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", new URL(import.meta.url).pathname, root, "--only"],
          stderr: "inherit",
        }).output();
        const cpu = new TextDecoder().decode(out.stdout).trim();
        console.log(`round ${round}: ${root}: ${cpu} µs CPU per guard call`);
      }
    }
  }
}
