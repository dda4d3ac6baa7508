// Makes the app and the admin token the suite's workers read, once per run.
import fs from "node:fs/promises";
import path from "node:path";

import { createRestAPIClient } from "../src/index.js";
import { rookeryToken } from "./services/rookery.js";

export default async function main(): Promise<void> {
  const cache = path.join(import.meta.dirname, "../node_modules/.cache/masto");
  await fs.mkdir(cache, { recursive: true });
  const masto = createRestAPIClient({ url: process.env.MASTO_URL! });
  const app = await masto.v1.apps.create({
    clientName: "Masto.js",
    redirectUris: "urn:ietf:wg:oauth:2.0:oob",
    scopes: "read write follow push admin:read admin:write",
  });
  await fs.writeFile(path.join(cache, "app.json"), JSON.stringify(app));
  const token = await rookeryToken(process.env.MASTO_ADMIN ?? "admin");
  await fs.writeFile(path.join(cache, "admin_token.json"), JSON.stringify(token));
}
