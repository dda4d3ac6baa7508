/**
 * The admin commands: maps parsed arguments to the reusable functions in
 * actors/ and turns their results into printable output. The command line
 * (direct database) and the admin socket (inside a running server) both run
 * this same code, so a command behaves identically either way.
 */
import { resolve } from "node:path";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db, Executor } from "../db/connection.ts";
import { oauthApplications } from "../db/schema/mod.ts";
import { createLocalAccount } from "../actors/accounts/accounts.ts";
import { isRole, ROLES } from "../model/permissions.ts";
import { NotFoundError, ValidationError } from "../model/errors.ts";
import {
  approveUser,
  confirmUser,
  deleteLocalAccount,
  disableUser,
  enableUser,
  listLocalUsers,
  requireLocalUser,
  resetPassword,
  setUserRole,
  type StateChange,
} from "../actors/moderation/local_users.ts";
import { addRule, listRules, removeRule } from "../actors/moderation/instance_rules.ts";
import { createAccessToken, createApplication } from "../actors/oauth/tokens.ts";
import { generatePassword } from "../actors/auth/passwords.ts";
import { CommandError, parseArgs, type ParsedArgs, safe, UsageError } from "./args.ts";
import { USAGE } from "./help.ts";
import { ALL_SCOPES, parseScopes } from "../model/scopes.ts";
import { recordDelivery } from "../actors/outbox/deliveries.ts";
import { formatDate, printable, table } from "./format.ts";
import { EMOJI_COMMANDS } from "./emoji_commands.ts";
import { DISCOVERY_COMMANDS } from "./discovery_commands.ts";
import { ANNOUNCEMENT_COMMANDS } from "./announcement_commands.ts";
import { REPORT_COMMANDS } from "./report_commands.ts";
import { MAINTENANCE_COMMANDS } from "./maintenance_commands.ts";
import { STORAGE_COMMANDS } from "./storage_commands.ts";
import { BACKUP_COMMANDS } from "./backup_commands.ts";
import { MEDIA_COMMANDS } from "./media_commands.ts";
import { DOMAIN_COMMANDS } from "./domain_commands.ts";
import { MODERATION_COMMANDS } from "./moderation_commands.ts";
import { MOVE_COMMANDS } from "./move_commands.ts";
import { ANNUAL_REPORT_COMMANDS } from "./annual_report_commands.ts";
import { ROLE_COMMANDS } from "./role_commands.ts";
import type { AdminEnv, Command, CommandResult, LocalEnv, Output } from "./command.ts";
import { flushDiscardedMedia } from "../actors/media/discarded.ts";
export type { AdminEnv, Command, CommandResult, LocalEnv, Output } from "./command.ts";

/** The application that owns tokens minted here; found again by name and empty redirect URIs. */
export const ADMIN_APP_NAME = "Rookery admin CLI";

const username = { positionals: ["username"], options: {} };

function stateCommand(
  name: string,
  change: (db: Db, username: string) => Promise<StateChange>,
  done: string,
  already: string,
): Command {
  return {
    ...username,
    usage: `account ${name} <username>`,
    async run({ db }, args) {
      const result = await change(db, args.positionals.username);
      return result.changed ? `${done} @${result.username}.` : `@${result.username} ${already}.`;
    },
  };
}

const COMMANDS: Record<string, Command> = {
  "account create": {
    usage:
      "account create <username> --email <email> [--password <password>] [--role <role>] [--confirmed] [--approved] [--allow-reserved] [--bot]",
    positionals: ["username"],
    options: {
      email: "string",
      password: "string",
      role: "string",
      confirmed: "boolean",
      approved: "boolean",
      "allow-reserved": "boolean",
      bot: "boolean",
    },
    async run({ db, config }, args) {
      const role = args.strings.role ?? "user";
      if (!isRole(role)) {
        throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      }
      if (args.strings.email === undefined) throw new UsageError("Missing --email <email>");
      const generated = args.strings.password === undefined;
      const password = args.strings.password ?? generatePassword();
      const confirmed = args.flags.has("confirmed");
      const approved = args.flags.has("approved") || config.registrations !== "approval";
      const { account, user } = await createLocalAccount(db, config.origin, {
        username: args.positionals.username,
        email: args.strings.email,
        password,
        role,
        confirmed,
        approved,
        allowReserved: args.flags.has("allow-reserved"),
        bot: args.flags.has("bot"),
        // tootctl takes `admin@localhost` too: development setups have no real domain.
        allowDotlessEmailHost: true,
      });
      // Key pairs soon (the relay makes them), so the account's first
      // federated action does not wait for them.
      await recordDelivery(db, "accountCreated", account.id);
      const lines = [
        `Created @${account.username} (${printable(user.email)}): role ${user.role}, ` +
        `${confirmed ? "confirmed" : "unconfirmed"}, ${
          approved ? "approved" : "pending approval"
        }.`,
      ];
      if (generated) lines.push(`Password: ${password}`);
      return lines.join("\n");
    },
  },
  "account list": {
    usage: "account list [--json]",
    positionals: [],
    options: { json: "boolean" },
    async run({ db }, args) {
      const users = await listLocalUsers(db);
      if (args.flags.has("json")) return JSON.stringify(users, null, 2);
      if (!users.length) return { stdout: "", stderr: "No local accounts." };
      return table(
        ["USERNAME", "EMAIL", "ROLE", "STATE", "CREATED"],
        users.map((u) => [
          u.username,
          u.email,
          u.role,
          [
            u.confirmed ? "confirmed" : "unconfirmed",
            u.approved ? "approved" : "pending",
            ...(u.disabled ? ["disabled"] : []),
          ].join(","),
          formatDate(u.createdAt),
        ]),
      );
    },
  },
  "account confirm": stateCommand("confirm", confirmUser, "Confirmed", "was already confirmed"),
  "account approve": stateCommand("approve", approveUser, "Approved", "was already approved"),
  "account disable": stateCommand("disable", disableUser, "Disabled", "was already disabled"),
  "account enable": stateCommand("enable", enableUser, "Enabled", "was not disabled"),
  "account role": {
    usage: "account role <username> <owner|admin|moderator|user>",
    positionals: ["username", "role"],
    options: {},
    async run({ db }, args) {
      const role = args.positionals.role;
      if (!isRole(role)) {
        throw new UsageError(`<role> must be one of ${ROLES.join(", ")}`);
      }
      const result = await setUserRole(db, args.positionals.username, role);
      return result.changed
        ? `@${result.username} is now ${role}.`
        : `@${result.username} was already ${role}.`;
    },
  },
  "account reset-password": {
    usage: "account reset-password <username>",
    ...username,
    async run({ db }, args) {
      const reset = await resetPassword(db, args.positionals.username);
      return `Reset the password of @${reset.username}; revoked ${
        plural(reset.revokedTokens, "access token")
      }.\nPassword: ${reset.password}`;
    },
  },
  "account delete": {
    usage: "account delete <username>",
    ...username,
    async run({ db, media }, args) {
      // The Delete(Person) to the account's remote contacts is recorded with the
      // deletion; without a running server it waits for the next worker's relay.
      const deletion = await deleteLocalAccount(db, args.positionals.username);
      await flushDiscardedMedia(db, media);
      return `Deleted @${deletion.username} (removed ${
        plural(deletion.removedFollows, "follow")
      }). The username stays taken.`;
    },
  },
  "token create": {
    usage: 'token create <username> --scopes "<space-separated scopes>"',
    positionals: ["username"],
    options: { scopes: "string" },
    async run({ db }, args) {
      if (args.strings.scopes === undefined) {
        throw new UsageError('Missing --scopes "<space-separated scopes>"');
      }
      const parsed = parseScopes(args.strings.scopes);
      if (!parsed.ok) {
        throw new UsageError(
          `Unknown scope${parsed.unknown.length > 1 ? "s" : ""}: ${
            parsed.unknown.slice(0, 5).map(safe).join(", ")
          }`,
        );
      }
      if (!parsed.scopes.length) throw new UsageError("--scopes is empty");
      return await db.transaction(async (tx) => {
        const { account, user } = await requireLocalUser(tx, args.positionals.username);
        const applicationId = await adminApplicationId(tx);
        const { token } = await createAccessToken(tx, {
          applicationId,
          userId: user.id,
          scopes: parsed.scopes,
        });
        const blockers = [
          ...(user.disabled ? ["disabled"] : []),
          ...(user.confirmedAt ? [] : ["unconfirmed"]),
          ...(user.approved ? [] : ["not approved"]),
        ];
        return {
          stdout: `Access token for @${account.username} (scopes: ${parsed.scopes.join(" ")}):\n` +
            token,
          stderr: blockers.length
            ? `Note: @${account.username} is ${
              blockers.join(", ")
            }; the API refuses the token until that changes.`
            : undefined,
        };
      });
    },
  },
  "rule list": {
    usage: "rule list [--json]",
    positionals: [],
    options: { json: "boolean" },
    async run({ db }, args) {
      const rules = await listRules(db);
      if (args.flags.has("json")) {
        return JSON.stringify(rules.map(({ id, text, hint }) => ({ id, text, hint })), null, 2);
      }
      if (!rules.length) return { stdout: "", stderr: "No rules." };
      return table(["ID", "TEXT", "HINT"], rules.map((r) => [r.id, r.text, r.hint]));
    },
  },
  "rule add": {
    usage: "rule add <text> [--hint <hint>]",
    positionals: ["text"],
    options: { hint: "string" },
    async run({ db }, args) {
      const rule = await addRule(db, { text: args.positionals.text, hint: args.strings.hint });
      return `Added rule ${rule.id}.`;
    },
  },
  "rule remove": {
    usage: "rule remove <id>",
    positionals: ["id"],
    options: {},
    async run({ db }, args) {
      const rule = await removeRule(db, args.positionals.id);
      return `Removed rule ${rule.id}: ${printable(rule.text)}`;
    },
  },
  ...EMOJI_COMMANDS,
  ...DISCOVERY_COMMANDS,
  ...ANNOUNCEMENT_COMMANDS,
  ...REPORT_COMMANDS,
  ...MAINTENANCE_COMMANDS,
  ...STORAGE_COMMANDS,
  ...BACKUP_COMMANDS,
  ...MEDIA_COMMANDS,
  ...DOMAIN_COMMANDS,
  ...MODERATION_COMMANDS,
  ...MOVE_COMMANDS,
  ...ANNUAL_REPORT_COMMANDS,
  ...ROLE_COMMANDS,
};

/** The application for CLI tokens, created on first use with every scope. */
async function adminApplicationId(db: Executor): Promise<string> {
  // API registrations always carry redirect URIs, so an app of that name with
  // none and no owner is ours, not a look-alike someone registered.
  const [existing] = await db.select({ id: oauthApplications.id }).from(oauthApplications)
    .where(and(
      eq(oauthApplications.name, ADMIN_APP_NAME),
      isNull(oauthApplications.ownerUserId),
      sql`${oauthApplications.redirectUris} = '[]'::jsonb`,
    )).orderBy(oauthApplications.id).limit(1);
  if (existing) return existing.id;
  const { application } = await createApplication(db, {
    name: ADMIN_APP_NAME,
    redirectUris: [],
    scopes: [...ALL_SCOPES],
  });
  return application.id;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

const GROUPS = new Set(Object.keys(COMMANDS).map((name) => name.split(" ")[0]));

/** A command ready to run, or the output to print without touching the database. */
export type Prepared =
  | { kind: "done"; result: CommandResult }
  | { kind: "run"; run(env: AdminEnv): Promise<CommandResult> }
  | { kind: "local"; run(env: LocalEnv): Promise<CommandResult> };

/** A usage error: the message, then the command's synopsis or, failing that, the full help. */
function usage(message: string, synopsis?: string): CommandResult {
  const help = synopsis
    ? `Usage: deno task admin ${synopsis}\nRun "deno task admin help" for details.\n`
    : `\n${USAGE}`;
  return { exitCode: 2, stdout: "", stderr: `Error: ${message}\n${help}` };
}

/**
 * Parses argv. Help and usage errors are answered here, so the command line
 * settles them without opening the database or reaching the server.
 */
export function prepareCommand(argv: string[]): Prepared {
  const [group, action, ...rest] = argv;
  if (group === undefined) return { kind: "done", result: usage("No command given") };
  if (["help", "--help", "-h"].includes(group) || rest.includes("--help")) {
    return { kind: "done", result: { exitCode: 0, stdout: USAGE, stderr: "" } };
  }
  // Commands of one word (backup, restore) take every word after them.
  if (Object.hasOwn(COMMANDS, group)) return prepared(COMMANDS[group], argv.slice(1));
  if (!GROUPS.has(group)) return { kind: "done", result: usage(`Unknown command ${safe(group)}`) };
  const command = action === undefined ? undefined : COMMANDS[`${group} ${action}`];
  if (!command || !Object.hasOwn(COMMANDS, `${group} ${action}`)) {
    const known = Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `))
      .map((n) => n.split(" ")[1]).join(", ");
    const what = action === undefined
      ? `Missing the ${group} command;`
      : `Unknown ${group} command ${safe(action)};`;
    return { kind: "done", result: usage(`${what} ${group} commands are: ${known}`) };
  }
  return prepared(command, rest);
}

function prepared(command: Command, rest: string[]): Prepared {
  let args: ParsedArgs;
  try {
    args = parseArgs(rest, command);
  } catch (error) {
    if (error instanceof UsageError) {
      return { kind: "done", result: usage(error.message, command.usage) };
    }
    throw error;
  }
  if (command.local) {
    return { kind: "local", run: (env) => execute(() => command.run(env, args), command) };
  }
  return { kind: "run", run: (env) => execute(() => command.run(env, args), command) };
}

async function execute(run: () => Promise<Output>, command: Command): Promise<CommandResult> {
  try {
    const output = await run();
    const { stdout, stderr } = typeof output === "string" ? { stdout: output } : output;
    return { exitCode: 0, stdout: line(stdout), stderr: line(stderr ?? "") };
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message, command.usage);
    return describeError(error);
  }
}

/** Turns a command's failure into a readable message; only real bugs show their name. */
export function describeError(error: unknown): CommandResult {
  if (error instanceof UsageError) return usage(error.message);
  if (error instanceof ValidationError) {
    const lines = Object.entries(error.details).flatMap(([field, entries]) =>
      entries.map((e) => `  ${field} ${e.description} (${e.error})`)
    );
    return { exitCode: 1, stdout: "", stderr: `Error: validation failed:\n${lines.join("\n")}\n` };
  }
  if (error instanceof NotFoundError || error instanceof CommandError) {
    return { exitCode: 1, stdout: "", stderr: `Error: ${error.message}\n` };
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { exitCode: 1, stdout: "", stderr: `Error: the command failed: ${message}\n` };
}

function line(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/**
 * The argv to send to a running server: the same command with its file
 * arguments made absolute against `cwd` (the server does not share the
 * command line's working directory). Argv that does not parse is returned
 * as it is; the server answers its usage error.
 */
export function withAbsolutePaths(argv: string[], cwd: string): string[] {
  const single = Object.hasOwn(COMMANDS, argv[0] ?? "");
  const name = single ? [argv[0]] : argv.slice(0, 2);
  const rest = argv.slice(name.length);
  const key = name.join(" ");
  const command = Object.hasOwn(COMMANDS, key) ? COMMANDS[key] : undefined;
  if (!command?.paths?.length || rest.includes("--help")) return argv;
  let args: ParsedArgs;
  try {
    args = parseArgs(rest, command);
  } catch {
    return argv;
  }
  const positionals = command.positionals.map((name) => {
    const value = args.positionals[name];
    return command.paths!.includes(name) ? resolve(cwd, value) : value;
  });
  return [
    ...name,
    ...Object.entries(args.strings).map(([name, value]) => `--${name}=${value}`),
    ...[...args.flags].map((name) => `--${name}`),
    "--",
    ...positionals,
  ];
}

/** Parses and runs one command against a database; never throws. */
export async function runAdminCommand(env: AdminEnv, argv: string[]): Promise<CommandResult> {
  const prepared = prepareCommand(argv);
  if (prepared.kind === "done") return prepared.result;
  // The command line never sends these (admin/cli.ts runs them itself).
  if (prepared.kind === "local") return usage("This command runs only from the command line");
  return await prepared.run(env);
}
