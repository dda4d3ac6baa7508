/**
 * Admin canonical e-mail blocks (manage_blocks; admin:read:canonical_email_blocks
 * or admin:write:canonical_email_blocks):
 * - GET /api/v1/admin/canonical_email_blocks (max_id, since_id, min_id, limit ≤ 200) → [Admin::CanonicalEmailBlock]
 * - GET /api/v1/admin/canonical_email_blocks/:id → Admin::CanonicalEmailBlock
 * - POST /api/v1/admin/canonical_email_blocks/test (email) → [Admin::CanonicalEmailBlock] that match
 * - POST /api/v1/admin/canonical_email_blocks (email or canonical_email_hash) → Admin::CanonicalEmailBlock
 * - DELETE /api/v1/admin/canonical_email_blocks/:id → {}
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { validationFailed } from "../../errors.ts";
import { params } from "../../params.ts";
import { readString } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { serializeCanonicalEmailBlock } from "../../entities/admin_canonical_email_block.ts";
import {
  canonicalEmailBlocksFor,
  createCanonicalEmailBlock,
  deleteCanonicalEmailBlock,
  getCanonicalEmailBlock,
  listCanonicalEmailBlocks,
} from "../../../actors/access_blocks/canonical_email_blocks.ts";
import { blockPage, linkBlocks, pathId, runCommand, staffAccount } from "./block_helpers.ts";

const PATH = "/api/v1/admin/canonical_email_blocks";
const read = requireStaff("manage_blocks", "admin:read:canonical_email_blocks");
const write = requireStaff("manage_blocks", "admin:write:canonical_email_blocks");

/** The routes, mounted at the root of the app. */
export function adminCanonicalEmailBlockRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(PATH, read, async (c) => {
    const { db } = c.get("ctx").database;
    const page = blockPage(await params(c));
    const rows = await listCanonicalEmailBlocks(db, page);
    linkBlocks(c, rows, page.limit);
    return c.json(rows.map(serializeCanonicalEmailBlock));
  });

  app.get(`${PATH}/:id`, read, async (c) => {
    const { db } = c.get("ctx").database;
    const row = await runCommand(() => getCanonicalEmailBlock(db, pathId(c)));
    return c.json(serializeCanonicalEmailBlock(row));
  });

  // Mastodon authorizes the test as reading (`:test?` on the read scope).
  app.post(`${PATH}/test`, read, async (c) => {
    const { db } = c.get("ctx").database;
    const email = readString(await params(c), "email", { maxLength: 1_000 });
    if (!email) throw validationFailed("Email can't be blank");
    return c.json((await canonicalEmailBlocksFor(db, email)).map(serializeCanonicalEmailBlock));
  });

  app.post(PATH, write, async (c) => {
    const { db } = c.get("ctx").database;
    const p = await params(c);
    const input = {
      email: readString(p, "email", { maxLength: 1_000 }),
      canonicalEmailHash: readString(p, "canonical_email_hash", { maxLength: 200 }),
    };
    const row = await runCommand(() => createCanonicalEmailBlock(db, staffAccount(c), input));
    return c.json(serializeCanonicalEmailBlock(row));
  });

  app.delete(`${PATH}/:id`, write, async (c) => {
    const { db } = c.get("ctx").database;
    await runCommand(() => deleteCanonicalEmailBlock(db, staffAccount(c), pathId(c)));
    return c.json({});
  });

  return app;
}
