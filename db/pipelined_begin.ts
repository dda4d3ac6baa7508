/**
 * Transactions on PostgreSQL whose BEGIN goes out with their first statement.
 *
 * drizzle's postgres.js session runs a transaction through postgres.js's
 * `begin`, which sends BEGIN and waits for its answer before it runs the
 * callback: a round trip of its own in every transaction (a stored inbound
 * note has eight or so). Here the connection is reserved, BEGIN is queued
 * on it unanswered, and the callback's first statement follows it in the
 * same socket write; COMMIT (or ROLLBACK) as before.
 *
 * What postgres.js's `begin` guarantees besides is kept: a statement that
 * failed inside the transaction fails the transaction even when the
 * callback caught its error (PostgreSQL aborted it, and its COMMIT answers
 * ROLLBACK: that answer is turned into an error here), and a savepoint
 * (a nested transaction) rolls back alone. The patch is on the session
 * class, as db/connection.ts's prepareEveryQuery is.
 */
import { PostgresJsSession, PostgresJsTransaction } from "drizzle-orm/postgres-js";
import type postgres from "postgres";

/** A failed statement inside the transaction made PostgreSQL roll it back at COMMIT. */
export class RolledBackError extends Error {
  constructor() {
    super("The transaction was rolled back: a statement in it failed");
  }
}

type Session = {
  client: postgres.Sql;
  dialect: unknown;
  schema: unknown;
  options: unknown;
};

/** A reserved connection with the savepoints drizzle's nested transactions ask for. */
function withSavepoints(reserved: postgres.ReservedSql): postgres.ReservedSql {
  let savepoints = 0;
  const savepoint = async (fn: (sql: postgres.ReservedSql) => Promise<unknown>) => {
    const name = `s${savepoints++}`;
    await reserved.unsafe(`SAVEPOINT ${name}`);
    try {
      const result = await fn(reserved);
      await reserved.unsafe(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await reserved.unsafe(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  };
  return Object.assign(reserved, { savepoint });
}

/** Switches drizzle's postgres.js transactions to a pipelined BEGIN (once per process). */
export function pipelineBegin(): void {
  const proto = PostgresJsSession.prototype as unknown as {
    transaction(run: (tx: unknown) => Promise<unknown>, config?: unknown): Promise<unknown>;
    [patched]?: true;
  };
  if (proto[patched]) return;
  const original = proto.transaction;
  proto.transaction = async function (this: Session, run, config) {
    // Options (isolation level…) take a statement of their own: postgres.js's way.
    if (config) return await original.call(this, run, config);
    const reserved = withSavepoints(await this.client.reserve());
    try {
      // Not awaited: the callback's first statement goes out with it.
      const begun = reserved.unsafe("BEGIN");
      begun.catch(() => {});
      const Session = PostgresJsSession as unknown as new (...args: unknown[]) => unknown;
      const session = new Session(reserved, this.dialect, this.schema, this.options);
      const Transaction = PostgresJsTransaction as unknown as new (...args: unknown[]) => unknown;
      let result: unknown;
      try {
        result = await run(new Transaction(this.dialect, session, this.schema));
        await begun;
      } catch (error) {
        await reserved.unsafe("ROLLBACK").catch(() => {});
        throw error;
      }
      const committed = await reserved.unsafe("COMMIT");
      if (committed.command === "ROLLBACK") throw new RolledBackError();
      return result;
    } finally {
      reserved.release();
    }
  };
  proto[patched] = true;
}
const patched = Symbol("rookery.pipelineBegin");
