// Rookery's stand-ins for the parts of masto.js's e2e harness that drive a
// Mastodon in Docker: accounts come from Rookery's admin command line (in
// place of tootctl) and tokens from `admin token create` (Rookery, like
// Mastodon 4.4 and later, has no password grant); the pool of tokens is kept
// in memory (in place of Redis), one pool per test worker.
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import { promisify } from "node:util";

import { type mastodon } from "../../src/index.js";
import { type TokenFactory } from "./token-factory.js";
import { type TokenPool } from "./token-pool.js";

const run = promisify(execFile);
const SCOPES = "read write follow push admin:read admin:write";

async function admin(...args: string[]): Promise<string> {
  const { stdout } = await run("deno", ["task", "-q", "admin", ...args], {
    cwd: process.env.ROOKERY_DIR,
    env: process.env,
  });
  return stdout.trim();
}

/** A token for a local account, as the admin command line prints it. */
export async function rookeryToken(username: string): Promise<mastodon.v1.Token> {
  const accessToken = (await admin("token", "create", username, "--scopes", SCOPES))
    .split("\n").at(-1)!.trim();
  return {
    accessToken,
    tokenType: "Bearer",
    scope: SCOPES,
    createdAt: Math.floor(Date.now() / 1000),
  } as mastodon.v1.Token;
}

export class RookeryTokenFactory implements TokenFactory {
  async obtain(): Promise<mastodon.v1.Token> {
    const username = crypto.randomBytes(8).toString("hex");
    const email = `${username}@example.com`;
    const password = crypto.randomBytes(12).toString("hex");
    await admin(
      "account", "create", username, "--email", email, "--password", password,
      "--confirmed", "--approved",
    );
    return await rookeryToken(username);
  }
}

export class MemoryTokenPool implements TokenPool {
  private readonly free: mastodon.v1.Token[] = [];
  constructor(private readonly factory: TokenFactory) {}
  async acquire(): Promise<mastodon.v1.Token> {
    return this.free.pop() ?? (await this.factory.obtain());
  }
  async release(token: mastodon.v1.Token): Promise<void> {
    this.free.push(token);
  }
}
