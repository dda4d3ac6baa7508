/**
 * Builds measured in turn: BENCH_COMPARE_MAIN=/other/checkout/main.ts runs
 * that build's server and this one's (or BENCH_SERVER_MAIN's) alternately,
 * BENCH_ROUNDS rounds each (default 3), so a before/after comparison on a
 * shared machine sees the same load on both sides (bench/home.ts, rss.ts).
 */

const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const COMPARE = Deno.env.get("BENCH_COMPARE_MAIN");
/** The build the bench runs by default (its own checkout's, or BENCH_SERVER_MAIN's). */
export const THIS_BUILD = Deno.env.get("BENCH_SERVER_MAIN") ?? "this checkout";

/** The `main` option a server of `build` starts with (none for the bench's own). */
export function serverMain(build: string): string | undefined {
  return build === THIS_BUILD ? undefined : build;
}

/** `measure` for each round and build, the compared build first in each round. */
export async function inTurn<R>(measure: (build: string, round: number) => Promise<R>) {
  const builds = COMPARE ? [COMPARE, THIS_BUILD] : [THIS_BUILD];
  const results: R[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const build of builds) results.push(await measure(build, round));
  }
  return results;
}
