/**
 * BENCH_ONLY=rss: the idle RSS row alone (bench/process.ts `idleRss`: a
 * fresh server, 100 ordinary requests, 5 s of rest, VmRSS), then, on the
 * same idle server, the latency of the first federation request it answers
 * (a WebFinger lookup, then the actor document): what a server that loads
 * parts of itself on first use pays once.
 *
 * BENCH_COMPARE_MAIN=/other/checkout/main.ts measures that build's server
 * and this one's (or BENCH_SERVER_MAIN's) in turn, BENCH_ROUNDS rounds each
 * (default 3), on the same data.
 */
import type { AloneOptions, AloneResult } from "./alone.ts";
import { inTurn, serverMain } from "./in_turn.ts";
import { freePort, idleRss } from "./process.ts";

interface RssRound {
  main: string;
  round: number;
  rss: number;
  /** ms to the first WebFinger answer, then to the first actor document, after the idle RSS. */
  webfingerMs: number;
  actorMs: number;
}

/** ms to a 200 for `url`. */
async function timed(url: string, accept: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers: { accept } });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return Math.round(performance.now() - started);
}

async function measure(o: AloneOptions, main: string, round: number): Promise<RssRound> {
  const server = await o.start(freePort(), { main: serverMain(main) });
  try {
    const rss = await idleRss(server.url, server.pid, o.tokens.viewerToken);
    const host = new URL(server.url).host;
    const webfingerMs = await timed(
      `${server.url}/.well-known/webfinger?resource=acct:bench0@${host}`,
      "application/jrd+json",
    );
    const actorMs = await timed(`${server.url}/users/bench0`, "application/activity+json");
    o.log(`${o.database}: ${main} round ${round}: idle RSS ${rss} MiB`);
    return { main, round, rss, webfingerMs, actorMs };
  } finally {
    await server.stop();
  }
}

export async function runRss(o: AloneOptions): Promise<AloneResult> {
  const rounds = await inTurn((main, round) => measure(o, main, round));
  return {
    rows: [],
    print() {
      console.log(`\nIdle RSS after 100 requests, ${o.database}:\n`);
      console.log("| server | round | idle RSS (MiB) | then WebFinger (ms) | then actor (ms) |");
      console.log("|---|---:|---:|---:|---:|");
      for (const r of rounds) {
        console.log(
          `| ${r.main} | ${r.round} | ${r.rss} | ${r.webfingerMs} | ${r.actorMs} |`,
        );
      }
    },
  };
}
