/**
 * Backups of the embedded database (PGlite): a consistent copy while the
 * server runs, and a restore into an empty directory while it is stopped.
 * PostgreSQL deployments use pg_dump (docs/administration.md).
 *
 * The copy is PGlite's own data-directory tarball, gzipped: PGlite's
 * `loadDataDir` reads it back. It is taken inside PGlite's transaction lock,
 * which waits for an open transaction to end and holds new statements back:
 * a cut between transactions, never inside one. The tarball is held in
 * memory once (about the database's size); compressing and writing happen
 * after the lock is released.
 */
import { PGlite } from "@electric-sql/pglite";
import type { Database } from "./connection.ts";

/** PGlite's lock around transactions (present in the pinned 0.5.x; db/pglite_prepared.ts uses it too). */
interface TransactionLock {
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

export interface BackupReport {
  /** Bytes written (compressed). */
  bytes: number;
  /** Bytes of the database's files. */
  databaseBytes: number;
  /** How long statements were held back. */
  pauseMs: number;
}

/** The backup file exists and may not be overwritten. */
export class BackupFileExists extends Error {}

/** Writes a consistent, gzipped copy of the embedded database to `file` (mode 0600). */
export async function backupPglite(
  database: Database,
  file: string,
  options: { force?: boolean } = {},
): Promise<BackupReport> {
  const pglite = database.pglite;
  if (!pglite) throw new Error("Only the embedded database is backed up this way");
  if (!options.force && await exists(file)) {
    throw new BackupFileExists(`${file} exists; use --force to overwrite it`);
  }
  // Written pages go to the files first, so the dump need not replay WAL. A
  // statement cannot run inside the lock below (it would wait on it).
  await pglite.exec("CHECKPOINT");
  const started = performance.now();
  const dump = await (pglite as unknown as TransactionLock)._runExclusiveTransaction(() =>
    pglite.dumpDataDir("none")
  );
  const pauseMs = performance.now() - started;
  const part = `${file}.part`;
  try {
    const out = await Deno.open(part, { write: true, create: true, truncate: true, mode: 0o600 });
    // An existing .part keeps its old mode: make sure the copy is private.
    await Deno.chmod(part, 0o600);
    await dump.stream().pipeThrough(new CompressionStream("gzip")).pipeTo(out.writable);
    const reopened = await Deno.open(part, { read: true });
    try {
      await reopened.syncData();
    } finally {
      reopened.close();
    }
    await Deno.rename(part, file);
  } catch (error) {
    await Deno.remove(part).catch(() => {});
    throw error;
  }
  const { size } = await Deno.stat(file);
  return { bytes: size, databaseBytes: dump.size, pauseMs };
}

/** The backup is not a gzipped PGlite data directory. */
export class NotABackup extends Error {}

/**
 * Creates the embedded database in `dir` (which must not hold one) from a
 * file `backupPglite` wrote. The caller makes sure no process has it open.
 */
export async function restorePglite(dir: string, file: string): Promise<void> {
  const bytes = await Deno.readFile(file);
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw new NotABackup(`${file} is not a backup made by "admin backup" (not gzip)`);
  }
  await Deno.mkdir(dir, { recursive: true });
  const pglite = await PGlite.create(dir, { loadDataDir: new Blob([bytes]) });
  await pglite.close();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
