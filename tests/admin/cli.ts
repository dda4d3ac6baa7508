/** Runs the real admin command line as a subprocess, as an operator would. */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const CLI = new URL("admin/cli.ts", ROOT).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The last non-empty stdout line. */
  last: string;
}

/** Where the CLI finds the server: the same variables the server reads. */
export interface CliTarget {
  dataDir: string;
  databaseUrl: string | null;
  env?: Record<string, string>;
}

/** `deno run -A admin/cli.ts ...args` with DATA_DIR/DATABASE_URL of the target. */
export async function cli(target: CliTarget, ...args: string[]): Promise<CliRun> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    cwd: ROOT.pathname,
    env: {
      DATA_DIR: target.dataDir,
      // Empty means PGlite (loadConfig treats "" as unset), whatever the parent has.
      DATABASE_URL: target.databaseUrl ?? "",
      REGISTRATIONS: "open",
      NO_COLOR: "1",
      ...target.env,
    },
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  const lines = stdout.split("\n").filter((l) => l.trim() !== "");
  return { code: output.code, stdout, stderr, last: lines.at(-1) ?? "" };
}

/** Asserts an exit code, showing the output when it differs. */
export function expectCode(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

/** The password a create or reset-password printed on its "Password: ..." line. */
export function printedPassword(run: CliRun): string {
  const match = run.stdout.match(/^Password: (\S+)$/m);
  assert.ok(match, `no password in: ${run.stdout}`);
  return match[1];
}
