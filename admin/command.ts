/**
 * The shape of an admin command and of what it returns, in a module of its
 * own: the command tables (commands.ts and the *_commands.ts files it
 * gathers) import these types without importing each other.
 */
import type { Config } from "../config.ts";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/connection.ts";
import type { ArgSpec, ParsedArgs } from "./args.ts";
import type { ProgressSink } from "./progress.ts";

/** What a command printed and how it ended; also the admin socket's response. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** What a command runs against: the server's (or the CLI's own) database and configuration. */
export interface AdminEnv {
  db: Db;
  config: Config;
  /**
   * Where long jobs report their progress (admin/progress.ts): drawn on the
   * command line's stderr, or sent over the admin socket while the command
   * runs in the server. Absent: no progress is shown.
   */
  progress?: ProgressSink;
  /**
   * The process's context, for commands that federate or fetch (account
   * alias, account move); absent, such a command says it cannot run.
   */
  app?: AppContext;
}

/** What a command prints: stdout alone, or both streams. */
export type Output = string | { stdout: string; stderr?: string };

/** One admin command: its arguments, synopsis and what it does. */
export interface Command extends ArgSpec {
  /** The command's synopsis, shown after a usage error. */
  usage: string;
  /**
   * Positionals naming files on the operator's machine: the command line
   * makes them absolute before a running server (with its own working
   * directory) reads them.
   */
  paths?: string[];
  run(env: AdminEnv, args: ParsedArgs): Promise<Output>;
}
