/**
 * The database work of an inbound `Create(Note)` alone, without HTTP,
 * signatures or JSON-LD: the queue's statements around a handled activity
 * (the keyed INSERT that claims it, the statement that finishes it, and
 * whatever the worker runs after) and `createStatus` of a remote public
 * note, as the inbox's listener calls it. On PGlite each call into its
 * WebAssembly module is timed and summed by statement, which is where a
 * PGlite note spends most of its time; on PostgreSQL (BENCH_DATABASE_URL,
 * a database of its own, emptied first) the process CPU is the client's.
 *
 *   deno run -A bench/inbound_writes.ts [checkout of another build]
 *
 * With the path of another checkout, that checkout's code and this one's
 * run in turn (BENCH_ROUNDS rounds, default 3), each in its own process on
 * a fresh database. Process CPU per note over BENCH_NOTES notes (default
 * 2,000) after a warm-up; BENCH_FOLLOWERS local followers of the sender
 * (default 0, as the inbound bench), BENCH_STATEMENTS_SHOWN statements
 * listed (default 12).
 */
import process from "node:process";
import { sql } from "drizzle-orm";
import type { Database } from "../db/connection.ts";

const NOTES = Number(Deno.env.get("BENCH_NOTES") ?? 2000);
const WARM_UP = 300;
const FOLLOWERS = Number(Deno.env.get("BENCH_FOLLOWERS") ?? 0);
const SHOWN = Number(Deno.env.get("BENCH_STATEMENTS_SHOWN") ?? 12);
const DATABASE_URL = Deno.env.get("BENCH_DATABASE_URL") ?? null;
const ORIGIN = "http://localhost";
const SENDER = "https://remote.example/users/loadgen";

interface StatementTime {
  calls: number;
  ms: number;
}

/** Times every call into PGlite's module, by the statement it runs (its text, or its kind). */
function timeCalls(pglite: unknown): Map<string, StatementTime> {
  const pg = pglite as { execProtocolRawSync(m: Uint8Array): Uint8Array };
  const original = pg.execProtocolRawSync.bind(pg);
  const decoder = new TextDecoder();
  const cstr = (m: Uint8Array, at: number): [string, number] => {
    const end = m.indexOf(0, at);
    return [decoder.decode(m.subarray(at, end)), end + 1];
  };
  const texts = new Map<string, string>();
  const times = new Map<string, StatementTime>();
  pg.execProtocolRawSync = (m: Uint8Array) => {
    let key: string;
    if (m[0] === 80) { // Parse: remember the statement's text by name
      const [name, at] = cstr(m, 5);
      texts.set(name, cstr(m, at)[0]);
      key = "(parse)";
    } else if (m[0] === 66) { // Bind: the statement's text
      const [, at] = cstr(m, 5);
      const name = cstr(m, at)[0];
      key = texts.get(name) ?? name;
    } else if (m[0] === 81) key = cstr(m, 5)[0]; // a simple query
    else key = `(${String.fromCharCode(m[0])})`;
    const started = performance.now();
    try {
      return original(m);
    } finally {
      const t = times.get(key) ?? { calls: 0, ms: 0 };
      t.calls++;
      t.ms += performance.now() - started;
      times.set(key, t);
    }
  };
  return times;
}

/** Empties the PostgreSQL database at `url` (its public schema), for a fresh migration. */
async function emptied(url: string): Promise<void> {
  const { default: postgres } = await import("postgres");
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe("DROP SCHEMA public CASCADE; CREATE SCHEMA public");
  } finally {
    await admin.end();
  }
}

/** A fresh database at the code of the checkout at `root`, seeded, with the remote sender. */
export async function setUp(root: string) {
  const at = (path: string) => new URL(path, root).href;
  const { openDatabase } = await import(at("db/connection.ts"));
  const { seed } = await import(at("bench/seed.ts"));
  const dir = DATABASE_URL ? null : await Deno.makeTempDir({ prefix: "rookery-inbound-writes-" });
  if (DATABASE_URL) await emptied(DATABASE_URL);
  const database: Database = await openDatabase({
    databaseUrl: DATABASE_URL,
    pgliteDir: dir ?? "",
  });
  await seed(database, {
    origin: ORIGIN,
    accounts: 200,
    statuses: 20_000,
    followed: 10,
    posterFollowers: 10,
  });
  const [{ id: sender }] = await database.rows<{ id: string }>(sql`
    INSERT INTO accounts (id, username, domain, uri, inbox_url, followers_url)
    VALUES (${String(BigInt(Date.now() - 86_400_000) << 16n)}::bigint, 'loadgen',
      'remote.example', ${SENDER}, ${SENDER + "/inbox"}, ${SENDER + "/followers"})
    RETURNING id::text AS id`);
  if (FOLLOWERS > 0) {
    await database.db.execute(sql`INSERT INTO follows (id, account_id, target_account_id)
      SELECT a.id + 7, a.id, ${sender}::bigint FROM accounts a WHERE a.domain IS NULL
      ORDER BY a.id LIMIT ${FOLLOWERS}`);
  }
  return {
    database,
    sender,
    async close() {
      await database.close();
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** µs of process CPU per note, and the module's time by statement, for the checkout at `root`. */
async function measure(root: string): Promise<void> {
  const { createStatus } = await import(new URL("actors/statuses/create.ts", root).href);
  const { SqlMessageQueue } = await import(new URL("federation/stores/sql_queue.ts", root).href);
  const { database, sender, close } = await setUp(root);
  const times = database.pglite ? timeCalls(database.pglite) : null;
  const controller = new AbortController();
  try {
    const ctx = {
      database,
      config: { origin: ORIGIN, emailSubscriptions: { digestDelayMs: 0, minIntervalMs: 0 } },
    };
    // The worker's side: a queue that runs here, its handler storing the note.
    const queue = new SqlMessageQueue(database);
    const handled = new Map<string, () => void>();
    const listening = queue.listen(async (message: { id: string; uri: string }) => {
      await createStatus(ctx, {
        local: false,
        accountId: sender,
        uri: message.uri,
        content: `<p>Inbound benchmark note ${message.id}, with a little text to carry.</p>`,
        visibility: "public",
        uriChecked: true,
      });
      handled.get(message.id)?.();
    }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const note = async (i: number) => {
      const id = crypto.randomUUID();
      const done = new Promise<void>((resolve) => handled.set(id, resolve));
      await queue.enqueueHere({ id, uri: `${SENDER}/notes/${i}` }, SENDER);
      await done;
      handled.delete(id);
      // The worker's own statements after the handler (its finish, and what follows).
      await new Promise((resolve) => setTimeout(resolve, 0));
    };
    for (let i = 0; i < WARM_UP; i++) await note(i);
    times?.clear();
    const before = process.cpuUsage();
    for (let i = WARM_UP; i < WARM_UP + NOTES; i++) await note(i);
    const used = process.cpuUsage(before);
    console.log(`${((used.user + used.system) / NOTES / 1000).toFixed(3)} ms of CPU per note`);
    if (times) {
      const rows = [...times.entries()].sort((a, b) => b[1].ms - a[1].ms);
      const total = rows.reduce((n, [, t]) => n + t.ms, 0);
      console.log(`${(total / NOTES).toFixed(3)} ms a note inside PGlite`);
      for (const [text, t] of rows.slice(0, SHOWN)) {
        const oneLine = text.replace(/\s+/g, " ").trim().slice(0, 110);
        console.log(
          `  ${(t.ms / NOTES * 1000).toFixed(0).padStart(5)} µs  ${
            (t.calls / NOTES).toFixed(2)
          }×  ${oneLine}`,
        );
      }
    }
    controller.abort();
    await listening;
  } finally {
    controller.abort();
    await close();
  }
}

if (import.meta.main) {
  const [other, only] = Deno.args;
  if (only === "--only") {
    await measure(new URL(other, "file:///").href);
  } else {
    const here = new URL("../", import.meta.url).href;
    const builds = other ? [other.endsWith("/") ? other : `${other}/`, here] : [here];
    const rounds = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
    for (let round = 1; round <= rounds; round++) {
      for (const build of builds) {
        const root = new URL(build, "file:///").pathname;
        console.log(`round ${round}, ${root}`);
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", new URL(import.meta.url).pathname, root, "--only"],
          stdout: "inherit",
          stderr: "inherit",
        }).output();
        if (!out.success) Deno.exit(1);
      }
    }
  }
}
