/**
 * The `search` scenario (`BENCH_ONLY=search`): GET /api/v2/search
 * ?type=statuses for a signed-in user over 1,000,000 statuses with words.
 *
 * Data, added to the common seed (seed.ts, `searchable: true`):
 * - every status has 8 to 14 words drawn from a 300-word vocabulary with a
 *   steep skew (the commonest word is in ~85% of statuses, the rarest in
 *   ~1%), plus one of 50,000 rare tokens (`k123`, ~20 statuses each);
 * - one status in ten is followers-only, one account in ten not indexable;
 * - the viewer (`bench0`) has favourited and bookmarked 1,000 statuses each
 *   (spread over the whole table) and wrote its own thousand.
 *
 * Load: `clients` back to back (closed loop; one by default, a user's
 * latency), each cycling through the query mix below, for BENCH_SECONDS;
 * latencies per request, p50/p95/p99 overall and per query.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/connection.ts";
import { percentile } from "./paced.ts";

/** The vocabulary, commonest first (any words would do; these read like posts). */
const WORDS = (
  "the and to of a in is it you that for on with this was are be have at not but " +
  "just like so my all what from about out up one can if your get more when today " +
  "new time people good now know some will see how think day back really would no " +
  "been they make going want there first work only also over much still here well " +
  "right love great thing even year need last little look way after make best many " +
  "never home life world free read post music night morning coffee weather city " +
  "train book film photo garden cat dog bird river mountain forest ocean beach sun " +
  "rain snow winter summer spring autumn friend family school office meeting project " +
  "release update server network code bug test design language history science space " +
  "planet moon star energy climate policy election market price game team match goal " +
  "season player coach stadium concert guitar piano song album artist painting museum " +
  "gallery theatre dinner lunch breakfast recipe bread cheese pasta soup salad tea " +
  "bicycle walk run swim hike trail camp tent map travel airport hotel ticket border " +
  "bridge tower castle village island harbour lighthouse valley desert volcano glacier " +
  "meadow orchard vineyard barn tractor harvest seed soil compost beehive honey " +
  "lantern candle blanket sweater scarf umbrella kettle teapot saucepan skillet oven " +
  "ladder hammer chisel anvil forge loom spindle quill parchment inkwell telescope " +
  "sextant compass astrolabe chronometer barometer hygrometer anemometer seismograph " +
  "periscope gyroscope kaleidoscope stethoscope microscope oscilloscope spectrometer " +
  "quokka axolotl pangolin narwhal okapi tapir capybara wombat platypus echidna " +
  "kakapo takahe tuatara aardvark binturong fossa saola gerenuk dugong vaquita " +
  "marmot pika ermine stoat pine marten wolverine lynx ocelot margay serval caracal"
).split(" ");

/** How many rare tokens there are (`k0` … `k49999`). */
const RARE_TOKENS = 50_000;

/**
 * The content of status number `g` (an SQL bigint expression): skewed
 * vocabulary words and one rare token. Correlated with `g`, so PostgreSQL
 * draws new words for each row.
 */
export function searchableContent(g: SQL): SQL {
  const list = sql.raw(`ARRAY[${WORDS.map((w) => `'${w}'`).join(",")}]::text[]`);
  return sql`'<p>' || (SELECT string_agg((${list})[1 + floor(power(random(), 3) * ${WORDS.length})::int], ' ')
      FROM generate_series(1, 8 + (${g} % 7)::int)) || ' k' || ((${g} * 7919) % ${RARE_TOKENS}) || '</p>'`;
}

/** Favourites and bookmarks of the viewer and unindexable accounts, after the common seed. */
export async function seedSearchLibrary(database: Database): Promise<void> {
  const viewer = sql`(SELECT id FROM accounts WHERE username = 'bench0' AND domain IS NULL)`;
  // Status ids are multiples of 65,536 (seed.ts): +1 and +2 make unique row ids.
  // BERNOULLI picks rows all over the table, as a user's favourites are (SYSTEM
  // would pick whole pages, which are cheaper to read back).
  await database.db.execute(sql`
    INSERT INTO favourites (id, account_id, status_id)
    SELECT p.id + 1, ${viewer}, p.id
    FROM (SELECT id FROM statuses TABLESAMPLE BERNOULLI (0.2) LIMIT 1000) p`);
  await database.db.execute(sql`
    INSERT INTO bookmarks (id, account_id, status_id)
    SELECT p.id + 2, ${viewer}, p.id
    FROM (SELECT id FROM statuses TABLESAMPLE BERNOULLI (0.2) LIMIT 1000) p`);
  // One account in ten does not allow its posts to be indexed.
  await database.db.execute(
    sql`UPDATE accounts SET indexable = false WHERE username LIKE 'bench%9'`,
  );
  await database.db.execute(sql`VACUUM (ANALYZE)`);
}

/** The query mix: name → q. */
export const SEARCH_QUERIES: Record<string, string> = {
  "common word (~85%)": WORDS[0],
  "mid word (~5%)": WORDS[20],
  "rare word (~1%)": WORDS[WORDS.length - 1],
  "rare token (~20 statuses)": "k4242",
  "no match": "zzyzx",
  "two words": `${WORDS[12]} ${WORDS[60]}`,
  "phrase": `"${WORDS[0]} ${WORDS[1]}"`,
  "word -exclusion": `${WORDS[30]} -${WORDS[0]}`,
  "from: operator": `${WORDS[5]} from:bench7`,
  "has:/is: operators": `${WORDS[3]} -is:reply -has:media`,
  "in:library": `${WORDS[8]} in:library`,
  "during:": `${WORDS[2]} during:${new Date().toISOString().slice(0, 10)}`,
};

export interface SearchResult {
  query: string;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

/** Runs the mix with `clients` back-to-back clients for `seconds`; per query and overall. */
export async function searchScenario(
  url: string,
  token: string,
  seconds: number,
  clients = 1,
): Promise<SearchResult[]> {
  const names = Object.keys(SEARCH_QUERIES);
  const samples = new Map<string, number[]>(names.map((n) => [n, []]));
  const errors = new Map<string, number>(names.map((n) => [n, 0]));
  const headers = { authorization: `Bearer ${token}` };
  const one = async (name: string) => {
    const target = `${url}/api/v2/search?type=statuses&limit=20&q=${
      encodeURIComponent(SEARCH_QUERIES[name])
    }`;
    const started = performance.now();
    const res = await fetch(target, { headers });
    const body = await res.json();
    const took = performance.now() - started;
    if (res.ok && Array.isArray(body.statuses)) samples.get(name)!.push(took);
    else errors.set(name, errors.get(name)! + 1);
  };
  // Warm-up: each query once.
  for (const name of names) await one(name);
  for (const list of samples.values()) list.length = 0;
  for (const name of names) errors.set(name, 0);
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = c; performance.now() < deadline; i++) await one(names[i % names.length]);
  }));
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const summarize = (query: string, list: number[], errs: number): SearchResult => {
    const sorted = [...list].sort((a, b) => a - b);
    return {
      query,
      requests: sorted.length,
      p50: round(percentile(sorted, 0.5)),
      p95: round(percentile(sorted, 0.95)),
      p99: round(percentile(sorted, 0.99)),
      errors: errs,
    };
  };
  const all = [...samples.values()].flat();
  const allErrors = [...errors.values()].reduce((a, b) => a + b, 0);
  return [
    summarize(`all (${clients} clients)`, all, allErrors),
    ...names.map((n) => summarize(n, samples.get(n)!, errors.get(n)!)),
  ];
}
