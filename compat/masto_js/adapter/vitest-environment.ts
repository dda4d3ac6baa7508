// The suite's globals (url, app, instance, token pool, admin token) for a
// Rookery at MASTO_URL; see rookery.ts for what stands in for Docker.
import fs from "node:fs/promises";
import path from "node:path";

import type { Environment } from "vitest/environments";

import { createRestAPIClient } from "../src/index.js";
import { MemoryTokenPool, RookeryTokenFactory } from "./services/rookery.js";

export default <Environment>{
  name: "mastodon",
  viteEnvironment: "ssr",
  async setup() {
    const url = process.env.MASTO_URL!;
    const cache = path.join(import.meta.dirname, "../node_modules/.cache/masto");
    const read = async (file: string) =>
      JSON.parse(await fs.readFile(path.join(cache, file), "utf8"));
    globalThis.__misc__ = {
      url,
      app: await read("app.json"),
      instance: await createRestAPIClient({ url }).v1.instance.fetch(),
      tokens: new MemoryTokenPool(new RookeryTokenFactory()),
      adminToken: await read("admin_token.json"),
    };
    return { teardown() {} };
  },
};
