/**
 * The command line's side of the admin socket, and the checks that decide
 * whether it may open the database itself.
 */
import type { CommandResult } from "./commands.ts";
import type { ProgressSink, ProgressState } from "./progress.ts";
import { LineReader, writeAll } from "./socket.ts";

/** What asking the server gave: its answer, or why there was none. */
export type ServerAnswer =
  | { kind: "answered"; result: CommandResult }
  | { kind: "absent" }
  | { kind: "refused" };

/** Largest response accepted (a long account list fits many times over). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Sends argv to a running server through its admin socket; progress goes to `onProgress`. */
export async function askServer(
  socketPath: string,
  argv: string[],
  onProgress?: ProgressSink,
): Promise<ServerAnswer> {
  let conn: Deno.UnixConn;
  try {
    conn = await Deno.connect({ transport: "unix", path: socketPath });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { kind: "absent" };
    if (error instanceof Deno.errors.ConnectionRefused) return { kind: "refused" };
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new AdminClientError(
        `Permission denied on ${socketPath}: run this as the user the server runs as.`,
      );
    }
    throw error;
  }
  try {
    await writeAll(conn, new TextEncoder().encode(JSON.stringify({ argv }) + "\n"));
    const lines = new LineReader(conn, MAX_RESPONSE_BYTES);
    let result: CommandResult | null = null;
    // Progress lines of a long job come first, then the one result line.
    for (let line = await lines.next(); line !== null; line = await lines.next()) {
      const message = line ? JSON.parse(line) : null;
      if (message && typeof message.progress === "object" && message.progress) {
        onProgress?.(message.progress as ProgressState);
        continue;
      }
      result = message as CommandResult | null;
      break;
    }
    if (!result || typeof result.exitCode !== "number") {
      throw new AdminClientError(
        "The server closed the admin connection without an answer; see its log.",
      );
    }
    return { kind: "answered", result };
  } finally {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

/** A failure to reach or trust the server, reported as a plain message. */
export class AdminClientError extends Error {}

/** The pid in a pid file, when the file exists and names a live process. */
export async function livePid(pidFile: string): Promise<number | null> {
  let pid: number;
  try {
    pid = Number((await Deno.readTextFile(pidFile)).trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === Deno.pid) return null;
  if (Deno.build.os === "linux") {
    try {
      await Deno.stat(`/proc/${pid}`);
      return pid;
    } catch {
      return null;
    }
  }
  // Elsewhere, `kill -0` asks whether the process exists without signalling it.
  try {
    const { success } = await new Deno.Command("kill", {
      args: ["-0", String(pid)],
      stdout: "null",
      stderr: "null",
    }).output();
    return success ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Claims the pid file for this process while it holds the embedded database
 * directly, so a second admin command started meanwhile refuses instead of
 * opening PGlite twice. Returns the release function, or the pid of the live
 * process that holds the file.
 */
export async function claimPidFile(
  pidFile: string,
): Promise<{ release(): Promise<void> } | { heldBy: number }> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await Deno.writeTextFile(pidFile, `${Deno.pid}\n`, { createNew: true, mode: 0o644 });
      return {
        async release() {
          const pid = await Deno.readTextFile(pidFile).catch(() => "");
          if (pid.trim() === String(Deno.pid)) await Deno.remove(pidFile).catch(() => {});
        },
      };
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      const holder = await livePid(pidFile);
      if (holder) return { heldBy: holder };
      await Deno.remove(pidFile).catch(() => {}); // left by a process that died
    }
  }
  const holder = await livePid(pidFile);
  return { heldBy: holder ?? 0 };
}
