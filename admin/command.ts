/**
 * The shape of an admin command and of what it returns, in a module of its
 * own: the command tables (commands.ts and the *_commands.ts files it
 * gathers) import these types without importing each other.
 */
import type { Config } from "../config.ts";
import type { AppContext } from "../context.ts";
import type { Db } from "../db/connection.ts";
import type { MediaStore } from "../actors/media/store/mod.ts";
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
  /** The process's media store (actors/media/store/mod.ts). */
  media: MediaStore;
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

/** What a command that opens no database runs with (see {@link Command.local}). */
export interface LocalEnv {
  config: Config;
  progress?: ProgressSink;
}

/** What a command prints: stdout alone, or both streams. */
export type Output = string | { stdout: string; stderr?: string };

interface CommandBase extends ArgSpec {
  /** The command's synopsis, shown after a usage error. */
  usage: string;
  /**
   * Positionals naming files on the operator's machine: the command line
   * makes them absolute before a running server (with its own working
   * directory) reads them.
   */
  paths?: string[];
}

/** A command a running server runs for the command line (else the command line itself). */
export interface ServerCommand extends CommandBase {
  local?: undefined;
  run(env: AdminEnv, args: ParsedArgs): Promise<Output>;
}

/**
 * A command the command line always runs in its own process, with its own
 * environment, never through a running server's admin socket (`media
 * migrate` copies to the storage the command line is configured for, while
 * the server may still use another; `restore` replaces the database a
 * server would hold open). `database: false`: it opens no database either.
 */
export interface LocalCommand extends CommandBase {
  local: { database: false };
  run(env: LocalEnv, args: ParsedArgs): Promise<Output>;
}

/** One admin command: its arguments, synopsis and what it does. */
export type Command = ServerCommand | LocalCommand;
