/**
 * A small, strict argument parser for the admin commands: positionals plus
 * `--name value`, `--name=value` and boolean `--flag`. Anything it does not
 * expect is a usage error, so a typo never silently changes what a command does.
 */

/** Declares one command's arguments. */
export interface ArgSpec {
  /** Names of the required positional arguments, in order. */
  positionals: string[];
  /** Options: "string" takes a value, "boolean" is a bare flag. */
  options: Record<string, "string" | "boolean">;
}

/** Arguments parsed by {@link parseArgs}: positionals by name, option values, and flags given. */
export interface ParsedArgs {
  positionals: Record<string, string>;
  strings: Record<string, string>;
  flags: Set<string>;
}

/** Thrown for arguments that do not fit the command; exit code 2. */
export class UsageError extends Error {}

/** A failure the operator can act on: its message is printed as it is (exit 1). */
export class CommandError extends Error {}

/** Parses `argv` (the words after the command name) against a spec. */
export function parseArgs(argv: string[], spec: ArgSpec): ParsedArgs {
  const positionals: string[] = [];
  const strings: Record<string, string> = {};
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-") throw new UsageError(`Unknown option ${safe(arg)}`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const kind = Object.hasOwn(spec.options, name) ? spec.options[name] : undefined;
    if (!kind) throw new UsageError(`Unknown option --${safe(name)}`);
    if (kind === "boolean") {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags.add(name);
      continue;
    }
    if (Object.hasOwn(strings, name)) throw new UsageError(`--${name} given twice`);
    if (eq >= 0) strings[name] = arg.slice(eq + 1);
    else if (i + 1 < argv.length) strings[name] = argv[++i];
    else throw new UsageError(`--${name} needs a value`);
  }
  if (positionals.length < spec.positionals.length) {
    throw new UsageError(`Missing <${spec.positionals[positionals.length]}>`);
  }
  if (positionals.length > spec.positionals.length) {
    throw new UsageError(
      `Unexpected argument ${safe(positionals[spec.positionals.length])}` +
        " (quote values that contain spaces)",
    );
  }
  return {
    positionals: Object.fromEntries(spec.positionals.map((name, i) => [name, positionals[i]])),
    strings,
    flags,
  };
}

/** Echoes user input in a message without control characters or unbounded length. */
export function safe(value: string): string {
  const clean = value.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}
