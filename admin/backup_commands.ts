/**
 * `backup FILE` and `restore FILE` for the embedded database (the work is in
 * db/backup.ts). `backup` runs in the server when one runs (through the admin
 * socket; FILE is made absolute first), so the copy is taken while it
 * serves. `restore` replaces the database a server would hold open: it runs
 * in the command line only, and only while no server runs. On PostgreSQL
 * both say to use pg_dump.
 */
import { openDatabase } from "../db/connection.ts";
import { isEmptyDirectory } from "../db/pglite_template.ts";
import { BackupFileExists, backupPglite, NotABackup, restorePglite } from "../db/backup.ts";
import { pgliteDirectory } from "../rookery.ts";
import { sql } from "drizzle-orm";
import { CommandError, type ParsedArgs, UsageError } from "./args.ts";
import type { Command, LocalEnv } from "./command.ts";
import { formatBytes } from "./maintenance_commands.ts";
import { claimPidFile } from "./client.ts";
import { adminPaths } from "./socket.ts";

const ON_POSTGRES = "Rookery on PostgreSQL is backed up with pg_dump; " +
  "see docs/administration.md (Backups)";

export const BACKUP_COMMANDS: Record<string, Command> = {
  backup: {
    usage: "backup <file> [--force]",
    positionals: ["file"],
    paths: ["file"],
    options: { force: "boolean" },
    async run({ app }, args) {
      const database = app?.database;
      if (!database?.pglite) throw new UsageError(ON_POSTGRES);
      const file = args.positionals.file;
      try {
        const report = await backupPglite(database, file, { force: args.flags.has("force") });
        return `Wrote ${file}: ${formatBytes(report.bytes)} (${
          formatBytes(report.databaseBytes)
        } of database); the server paused for ${(report.pauseMs / 1000).toFixed(1)} s.`;
      } catch (error) {
        if (error instanceof BackupFileExists) throw new CommandError(error.message);
        throw error;
      }
    },
  },
  restore: {
    usage: "restore <file> [--replace]",
    positionals: ["file"],
    options: { replace: "boolean" },
    local: { database: false },
    async run({ config }: LocalEnv, args: ParsedArgs) {
      if (config.databaseUrl) throw new UsageError(ON_POSTGRES);
      const paths = adminPaths(config.dataDir);
      const stopFirst = "stop the server first: restore replaces the database it has open";
      if (await socketAnswers(paths.socket)) throw new CommandError(stopFirst);
      await Deno.mkdir(config.dataDir, { recursive: true });
      const claim = await claimPidFile(paths.pid);
      if ("heldBy" in claim) throw new CommandError(`${stopFirst} (pid ${claim.heldBy})`);
      try {
        return await restoreInto(pgliteDirectory(config), args.positionals.file, {
          replace: args.flags.has("replace"),
        });
      } finally {
        await claim.release();
      }
    },
  },
};

/** Restores `file` into `dir`, moving a database already there aside with `replace`. */
async function restoreInto(
  dir: string,
  file: string,
  options: { replace: boolean },
): Promise<string> {
  await Deno.stat(file).catch(() => {
    throw new CommandError(`${file} does not exist`);
  });
  let movedTo: string | null = null;
  if (!(await isEmptyDirectory(dir))) {
    if (!options.replace) {
      throw new CommandError(
        `${dir} already holds a database; use --replace to move it aside and restore`,
      );
    }
    movedTo = `${dir}.before-restore-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    await Deno.rename(dir, movedTo);
  }
  try {
    await restorePglite(dir, file);
  } catch (error) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    if (movedTo) await Deno.rename(movedTo, dir);
    if (error instanceof NotABackup) throw new CommandError(error.message);
    throw error;
  }
  // Opened once, as a start would: migrations newer than the backup are applied now.
  const database = await openDatabase({ databaseUrl: null, pgliteDir: dir });
  let counts;
  try {
    [counts] = await database.rows<{ accounts: number; statuses: number }>(sql`
      SELECT (SELECT count(*) FROM accounts WHERE domain IS NULL)::int AS accounts,
        (SELECT count(*) FROM statuses)::int AS statuses`);
  } finally {
    await database.close();
  }
  const lines = [
    `Restored ${file} into ${dir} (${counts.accounts} local accounts, ${counts.statuses} statuses).`,
  ];
  if (movedTo) lines.push(`The previous database is in ${movedTo}.`);
  return lines.join("\n");
}

/** Whether a server listens on the admin socket. */
async function socketAnswers(path: string): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return true;
  } catch {
    return false;
  }
}
