/**
 * The admin socket: a Unix socket under the data directory through which the
 * admin command line reaches a running server (PGlite has a single owner).
 *
 * Protocol: the client connects, writes one JSON line `{"argv": [...]}`, and
 * reads JSON lines: any number of `{"progress": {...}}` (a long job's
 * progress, admin/progress.ts) and then one `{"exitCode", "stdout",
 * "stderr"}`; then both close.
 * Access control is the file mode (0600): whoever may connect is the server's
 * own user, who could read the database files anyway.
 *
 * The server also writes its pid to `rookery.pid` next to the socket, so the
 * command line can tell "no server" from "a server whose socket is broken"
 * and never opens PGlite under a live server.
 */
import { join } from "node:path";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { type CommandResult, runAdminCommand } from "./commands.ts";
import type { ProgressState } from "./progress.ts";

const logger = getLogger(["rookery", "admin"]);

/** Requests are a few arguments; anything bigger is not from our client. */
const MAX_REQUEST_BYTES = 1024 * 1024;

export interface AdminSocket {
  /** The socket's path. */
  readonly path: string;
  close(): Promise<void>;
}

/** Paths of the admin socket and the pid file in a data directory. */
export function adminPaths(dataDir: string): { socket: string; pid: string } {
  return { socket: join(dataDir, "admin.sock"), pid: join(dataDir, "rookery.pid") };
}

/**
 * Listens on `${dataDir}/admin.sock` and runs admin commands with the
 * server's database. Returns null when there is nowhere to put the socket (an
 * in-memory data directory) or when another live process already serves it
 * (several processes sharing one PostgreSQL database and data directory).
 */
export async function startAdminSocket(ctx: AppContext): Promise<AdminSocket | null> {
  const dataDir = ctx.config.dataDir;
  if (dataDir.startsWith("memory://") || Deno.build.os === "windows") return null;
  const paths = adminPaths(dataDir);
  await Deno.mkdir(dataDir, { recursive: true });
  if (await socketAnswers(paths.socket)) {
    logger.warn("Another process serves the admin socket {path}; not starting one.", {
      path: paths.socket,
    });
    return null;
  }
  await Deno.remove(paths.socket).catch(() => {});
  // The pid file goes first: even if the socket cannot be made, the command
  // line must know that this process owns the database.
  await Deno.writeTextFile(paths.pid, `${Deno.pid}\n`, { mode: 0o644 });
  const removePidFile = async () => {
    // Only our own pid file: a newer process may have replaced it.
    const pid = await Deno.readTextFile(paths.pid).catch(() => "");
    if (pid.trim() === String(Deno.pid)) await Deno.remove(paths.pid).catch(() => {});
  };
  let listener: Deno.UnixListener;
  try {
    listener = await listenPrivately(dataDir, paths.socket);
  } catch (error) {
    logger.error("Cannot serve the admin socket {path}: {error}", { path: paths.socket, error });
    return { path: paths.socket, close: removePidFile };
  }

  const inFlight = new Set<Promise<void>>();
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        const handling = serve(ctx, conn).finally(() => inFlight.delete(handling));
        inFlight.add(handling);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.BadResource)) {
        logger.error("Admin socket stopped: {error}", { error });
      }
    }
  })();
  logger.info("Admin socket listening on {path}.", { path: paths.socket });

  return {
    path: paths.socket,
    async close() {
      try {
        listener.close();
      } catch { /* already closed */ }
      await accepting;
      await Promise.allSettled([...inFlight]);
      await Deno.remove(paths.socket).catch(() => {});
      await removePidFile();
    },
  };
}

/**
 * Binds the socket inside a fresh 0700 directory, restricts it to 0600, then
 * moves it into place: there is no moment when the socket is reachable with
 * looser permissions, whatever the umask.
 */
async function listenPrivately(dataDir: string, path: string): Promise<Deno.UnixListener> {
  const staging = await Deno.makeTempDir({ dir: dataDir, prefix: ".admin-" });
  try {
    await Deno.chmod(staging, 0o700);
    const staged = join(staging, "s");
    const listener = Deno.listen({ transport: "unix", path: staged });
    await Deno.chmod(staged, 0o600);
    await Deno.rename(staged, path);
    return listener;
  } finally {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  }
}

async function serve(ctx: AppContext, conn: Deno.UnixConn): Promise<void> {
  try {
    const request = await readLine(conn, MAX_REQUEST_BYTES);
    if (request === "") return; // a liveness probe: connected, sent nothing
    let result: CommandResult;
    const argv = parseRequest(request);
    if (!argv) {
      result = { exitCode: 2, stdout: "", stderr: "Error: malformed admin request\n" };
    } else {
      // Progress lines go out in order while the command runs; a client that
      // went away only stops them, not the command.
      let sending = Promise.resolve();
      const encoder = new TextEncoder();
      const progress = (state: ProgressState) => {
        const data = encoder.encode(JSON.stringify({ progress: state }) + "\n");
        sending = sending.then(() => writeAll(conn, data)).catch(() => {});
      };
      result = await runAdminCommand({
        db: ctx.database.db,
        config: ctx.config,
        media: ctx.media,
        progress,
        app: ctx,
      }, argv);
      await sending;
      // The command words only: arguments may hold passwords.
      logger.info("Admin command {command} finished with exit code {code}.", {
        command: argv.slice(0, 2).join(" ").slice(0, 60),
        code: result.exitCode,
      });
    }
    await writeAll(conn, new TextEncoder().encode(JSON.stringify(result) + "\n"));
  } catch (error) {
    logger.warn("Admin connection failed: {error}", { error });
  } finally {
    try {
      conn.close();
    } catch { /* the client went away */ }
  }
}

function parseRequest(line: string | null): string[] | null {
  if (line == null) return null;
  try {
    const body = JSON.parse(line);
    const argv = body?.argv;
    return Array.isArray(argv) && argv.every((a) => typeof a === "string") ? argv : null;
  } catch {
    return null;
  }
}

/** Reads up to the first newline (or the end); null when the line is too long. */
export async function readLine(conn: Deno.Conn, limit: number): Promise<string | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) break;
    const chunk = buffer.slice(0, n);
    const newline = chunk.indexOf(10);
    chunks.push(newline < 0 ? chunk : chunk.slice(0, newline));
    size += n;
    if (newline >= 0) break;
    if (size > limit) return null;
  }
  const all = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.length;
  }
  return new TextDecoder().decode(all);
}

/**
 * Reads newline-separated lines from a connection, keeping what follows a
 * newline for the next call (several lines may arrive in one read).
 */
export class LineReader {
  #pending = new Uint8Array(0);
  #buffer = new Uint8Array(64 * 1024);
  constructor(private readonly conn: Deno.Conn, private readonly limit: number) {}

  /** The next line without its newline; null at the end; throws past the limit. */
  async next(): Promise<string | null> {
    while (true) {
      const newline = this.#pending.indexOf(10);
      if (newline >= 0) {
        const line = this.#pending.subarray(0, newline);
        this.#pending = this.#pending.slice(newline + 1);
        return new TextDecoder().decode(line);
      }
      if (this.#pending.length > this.limit) throw new Error("admin socket line too long");
      const n = await this.conn.read(this.#buffer);
      if (n === null) {
        if (this.#pending.length === 0) return null;
        const rest = this.#pending;
        this.#pending = new Uint8Array(0);
        return new TextDecoder().decode(rest);
      }
      const joined = new Uint8Array(this.#pending.length + n);
      joined.set(this.#pending);
      joined.set(this.#buffer.subarray(0, n), this.#pending.length);
      this.#pending = joined;
    }
  }
}

/** Writes every byte (a single write may be partial). */
export async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let offset = 0; offset < data.length;) offset += await conn.write(data.subarray(offset));
}

/** True when something accepts connections on the socket path. */
export async function socketAnswers(path: string): Promise<boolean> {
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
    return true;
  } catch {
    return false;
  }
}
