/**
 * BENCH_STATEMENTS=1 on PostgreSQL: the statements a scenario ran, counted
 * by the database (pg_stat_statements, which the bench's own server loads
 * then: bench/postgres.ts), so every statement counts, whichever client or
 * process sent it (drizzle's, the key-value store's, the queue's, both
 * roles'). Round trips are fewer when statements are pipelined or sent as
 * one batch; this counts statements, and `calls` per query text says which.
 */
import postgres from "postgres";

export const COUNT_STATEMENTS = Deno.env.get("BENCH_STATEMENTS") === "1";

export interface StatementCount {
  total: number;
  /** The busiest statements: calls and the first 160 characters of their text. */
  top: { calls: number; query: string }[];
}

/** A probe on `databaseUrl`: `reset()` before the measured run, `read()` after. */
export function statementProbe(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const name = new URL(databaseUrl).pathname.slice(1);
  return {
    async reset(): Promise<void> {
      await sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
      await sql`SELECT pg_stat_statements_reset()`;
    },
    async read(): Promise<StatementCount> {
      const rows = await sql<{ calls: string; query: string }[]>`
        SELECT s.calls::text, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 160) AS query
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = ${name} AND s.query NOT LIKE '%pg_stat_statements%'
        ORDER BY s.calls DESC`;
      return {
        total: rows.reduce((n, r) => n + Number(r.calls), 0),
        top: rows.slice(0, 30).map((r) => ({ calls: Number(r.calls), query: r.query })),
      };
    },
    close: () => sql.end(),
  };
}
export type StatementProbe = ReturnType<typeof statementProbe>;

/** The probe when BENCH_STATEMENTS=1 and the server runs on PostgreSQL (`databaseUrl`). */
export function statementProbeFor(databaseUrl: string | undefined): StatementProbe | undefined {
  return COUNT_STATEMENTS && databaseUrl ? statementProbe(databaseUrl) : undefined;
}
