/**
 * A PostgreSQL backend terminated under a running server (a PostgreSQL
 * restart, a failover, an administrator's pg_terminate_backend,
 * idle_in_transaction_session_timeout) costs the requests in flight, not the
 * process: while statuses are being posted in a loop, every backend of a
 * real server process (main.ts) is terminated, mid-transaction for some; the
 * process then still answers, and a status posted afterwards is stored.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { startServer } from "../fixtures/server_process.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

/** The server under test names its connections, so only they are terminated. */
const APP_NAME = "rookery-terminated-backends";

test(
  "a server survives its PostgreSQL backends being terminated mid-request",
  POSTGRES_ONLY,
  async () => {
    // The in-process instance migrates the database and issues the token.
    const a = await startInstance({ listen: false, worker: false });
    const dataDir = await Deno.makeTempDir({ prefix: "rookery-pgkill-" });
    const direct = await openDatabase({
      databaseUrl: a.databaseUrl!,
      pgliteDir: "",
      migrate: false,
    });
    const alice = await createUser(a, "alice");
    const server = await startServer({
      DATABASE_URL: a.databaseUrl!,
      ORIGIN: a.origin,
      DATA_DIR: dataDir,
      TRUST_PROXY: "true",
      PGAPPNAME: APP_NAME,
    });
    const exited = new Promise<string>((resolve) => {
      server.exited.then((status) => resolve(`the server exited with ${status.code}`));
    });
    const post = async (text: string) => {
      const res = await fetch(`${server.origin}/api/v1/statuses`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${alice.token}`,
          "content-type": "application/json",
          "x-forwarded-host": new URL(a.origin).host,
          "x-forwarded-proto": "http",
        },
        body: JSON.stringify({ status: text }),
      });
      return { status: res.status, body: await res.json() };
    };
    const terminate = async () => {
      // Materialized first: PostgreSQL may evaluate a WHERE's conditions in
      // any order, and pg_terminate_backend must only see the server's pids.
      const rows = await direct.rows<{ pid: number }>(sql`
      WITH server AS MATERIALIZED (
        SELECT pid FROM pg_stat_activity
        WHERE application_name = ${APP_NAME} AND datname = current_database()
      )
      SELECT pid FROM server WHERE pg_terminate_backend(pid)`);
      return rows.length;
    };
    try {
      let stop = false;
      const answers: number[] = [];
      /** Answers other than 200: Mastodon's shape for a temporary failure, not a crash. */
      const failures: { status: number; body: { error?: unknown } }[] = [];
      const writer = async (n: number) => {
        for (let i = 0; !stop; i++) {
          // A refused connection (the process is gone) counts as status 0.
          const answer = await post(`loop ${n}.${i}`).catch(() => ({ status: 0, body: {} }));
          answers.push(answer.status);
          if (answer.status !== 200) failures.push(answer);
          if (answer.status === 0) break;
        }
      };
      const writers = Array.from({ length: 4 }, (_, n) => writer(n));
      // Several rounds of terminations, each once writes are flowing again.
      let killed = 0;
      for (let round = 0; round < 5 && !answers.includes(0); round++) {
        const before = answers.length;
        await eventually(
          "writes in flight",
          () => Promise.resolve(answers.length >= before + 8 || answers.includes(0)),
        );
        killed += await terminate();
      }
      stop = true;
      await Promise.all(writers);
      assert.ok(killed > 0, "no backend was terminated");
      for (const { status, body } of failures) {
        assert.equal(status, 503, `answered ${status} ${JSON.stringify(body)} (0: refused)`);
        assert.equal(typeof body.error, "string");
      }

      const alive = await Promise.race([
        eventually("a status posted after the terminations", async () => {
          const res = await post("after the terminations");
          return res.status === 200 ? res.body : null;
        }),
        exited,
      ]);
      assert.equal(typeof alive, "object", String(alive));
      const [row] = await direct.rows<{ text: string }>(
        sql`SELECT text FROM statuses WHERE id = ${(alive as { id: string }).id}`,
      );
      assert.equal(row?.text, "after the terminations");
      assert.equal((await server.stop()).code, 0, "the server did not stop cleanly");
    } finally {
      await direct.close();
      await server.stop();
      await a.close({ destroy: true });
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
