/**
 * A fresh Rookery behind a TLS-terminating reverse proxy, as production runs
 * it, for the client conformance scripts of compat/: starts `main.ts` on the
 * embedded database in a throwaway data directory (ORIGIN https, TRUST_PROXY),
 * Debian's nginx (or Caddy) in front with docs/running.md's configuration and the
 * test certificate (tests/fixtures/proxy.ts), makes the accounts alice, bob
 * and carol with the admin command line, runs the command given after `--`
 * with the address and tokens in its environment, then stops everything.
 *
 *   deno run -A --cert tests/fixtures/tls/ca.pem compat/serve.ts [--proxy nginx|caddy|none] -- COMMAND [ARGS...]
 *
 * The command gets ROOKERY_URL, ROOKERY_TOKEN_ALICE/_BOB/_CAROL (every
 * scope), ROOKERY_PASSWORD (the three accounts'), ROOKERY_DIR (this
 * repository), ROOKERY_DATA_DIR, and the test CA in ROOKERY_CA,
 * REQUESTS_CA_BUNDLE (Python's requests), SSL_CERT_FILE and
 * NODE_EXTRA_CA_CERTS. `--hold` keeps the servers up until Ctrl-C instead
 * of running a command (for a client driven by hand or by a browser), and
 * prints that environment as one line of JSON. `--host NAME` names the
 * public origin `https://NAME:PORT` (the proxy still listens on 127.0.0.1;
 * the client must resolve NAME there: Chromium's --host-resolver-rules).
 */
import { startProxy } from "../tests/fixtures/proxy.ts";
import { freePort, startServer } from "../tests/fixtures/server_process.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const CA = `${ROOT}/tests/fixtures/tls/ca.pem`;
const ADMIN = `${ROOT}/admin/cli.ts`;
const USERS = ["alice", "bob", "carol"];
const PASSWORD = "correct horse battery staple";
const SCOPES = "read write follow push";

async function admin(dataDir: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ADMIN, ...args],
    env: { DATA_DIR: dataDir },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    throw new Error(`admin ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

async function makeUsers(dataDir: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const name of USERS) {
    await admin(
      dataDir,
      ..."account create".split(" "),
      name,
      "--email",
      `${name}@example.com`,
      "--password",
      PASSWORD,
      "--confirmed",
      "--approved",
    );
    const token = (await admin(dataDir, "token", "create", name, "--scopes", SCOPES))
      .split("\n").at(-1)!;
    env[`ROOKERY_TOKEN_${name.toUpperCase()}`] = token;
  }
  return env;
}

interface Args {
  proxy: string;
  /** The public host name (default localhost): a browser client may want one with a dot. */
  host: string;
  hold: boolean;
  command: string[];
}

function parseArgs(args: string[]): Args {
  const dash = args.indexOf("--");
  const own = dash < 0 ? args : args.slice(0, dash);
  const command = dash < 0 ? [] : args.slice(dash + 1);
  const proxyAt = own.indexOf("--proxy");
  const proxy = proxyAt < 0 ? "nginx" : own[proxyAt + 1];
  const hostAt = own.indexOf("--host");
  const host = hostAt < 0 ? "localhost" : own[hostAt + 1];
  const hold = own.includes("--hold");
  if (!["nginx", "caddy", "none"].includes(proxy) || (!hold && !command.length) || !host) {
    console.error(
      "usage: serve.ts [--proxy nginx|caddy|none] [--host NAME] [--hold] [-- COMMAND ARGS...]",
    );
    Deno.exit(2);
  }
  return { proxy, host, hold, command };
}

async function main(): Promise<number> {
  const { proxy: kind, host, hold, command } = parseArgs(Deno.args);
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-compat-" });
  const port = freePort();
  const origin = kind === "none" ? null : `https://${host}:${port}`;
  const server = await startServer({
    DATA_DIR: dataDir,
    RATE_LIMITS: "off",
    ...(origin ? { ORIGIN: origin, TRUST_PROXY: "true" } : {}),
  });
  const proxy = kind === "none" ? null : await startProxy(kind as "nginx" | "caddy", {
    upstream: server.origin,
    port,
  }).catch(async (error) => {
    await server.stop();
    throw error;
  });
  const url = origin ?? server.origin;
  try {
    const env = {
      ...await makeUsers(dataDir),
      ROOKERY_URL: url,
      ROOKERY_PASSWORD: PASSWORD,
      ROOKERY_DIR: ROOT,
      ROOKERY_DATA_DIR: dataDir,
      ROOKERY_CA: CA,
      REQUESTS_CA_BUNDLE: CA,
      SSL_CERT_FILE: CA,
      NODE_EXTRA_CA_CERTS: CA,
    };
    if (hold) {
      console.log(JSON.stringify(env));
      const { promise, resolve } = Promise.withResolvers<void>();
      Deno.addSignalListener("SIGINT", resolve);
      Deno.addSignalListener("SIGTERM", resolve);
      await promise;
      return 0;
    }
    const child = new Deno.Command(command[0], { args: command.slice(1), env }).spawn();
    return (await child.status).code;
  } finally {
    await proxy?.close();
    await server.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

Deno.exit(await main());
