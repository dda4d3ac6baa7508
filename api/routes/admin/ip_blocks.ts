/**
 * Admin IP blocks (manage_blocks; admin:read:ip_blocks or admin:write:ip_blocks):
 * - GET /api/v1/admin/ip_blocks (max_id, since_id, min_id, limit ≤ 200) → [Admin::IpBlock]
 * - GET /api/v1/admin/ip_blocks/:id → Admin::IpBlock
 * - POST /api/v1/admin/ip_blocks (ip, severity, comment, expires_in) → Admin::IpBlock
 * - PUT /api/v1/admin/ip_blocks/:id (the same, each optional) → Admin::IpBlock
 * - DELETE /api/v1/admin/ip_blocks/:id → {}
 * Expired blocks are neither listed nor found. A blank `expires_in` on
 * update makes the block permanent.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { type Params, params } from "../../params.ts";
import { readInt, readString } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { serializeIpBlock } from "../../entities/admin_ip_block.ts";
import {
  createIpBlock,
  deleteIpBlock,
  getIpBlock,
  type IpBlockInput,
  listIpBlocks,
  updateIpBlock,
} from "../../../actors/access_blocks/ip_blocks.ts";
import { blockPage, linkBlocks, pathId, runCommand, staffAccount } from "./block_helpers.ts";

const PATH = "/api/v1/admin/ip_blocks";
const read = requireStaff("manage_blocks", "admin:read:ip_blocks");
const write = requireStaff("manage_blocks", "admin:write:ip_blocks");

function readInput(p: Params): IpBlockInput {
  const input: IpBlockInput = {
    ip: readString(p, "ip", { maxLength: 200 }),
    severity: readString(p, "severity", { maxLength: 100 }),
    comment: readString(p, "comment", { allowBlank: true }),
  };
  if (Object.hasOwn(p, "expires_in")) {
    input.expiresIn = p.expires_in === "" || p.expires_in === null
      ? null
      : readInt(p, "expires_in");
  }
  return input;
}

/** The routes, mounted at the root of the app. */
export function adminIpBlockRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(PATH, read, async (c) => {
    const { db } = c.get("ctx").database;
    const page = blockPage(await params(c));
    const rows = await listIpBlocks(db, page);
    linkBlocks(c, rows, page.limit);
    return c.json(rows.map(serializeIpBlock));
  });

  app.get(`${PATH}/:id`, read, async (c) => {
    const { db } = c.get("ctx").database;
    return c.json(serializeIpBlock(await runCommand(() => getIpBlock(db, pathId(c)))));
  });

  app.post(PATH, write, async (c) => {
    const input = readInput(await params(c));
    const row = await runCommand(() => createIpBlock(c.get("ctx"), staffAccount(c), input));
    return c.json(serializeIpBlock(row));
  });

  const update = async (c: Context<ApiEnv>) => {
    const id = pathId(c);
    const input = readInput(await params(c));
    const row = await runCommand(() => updateIpBlock(c.get("ctx"), staffAccount(c), id, input));
    return c.json(serializeIpBlock(row));
  };
  app.on(["PUT", "PATCH"], `${PATH}/:id`, write, update);

  app.delete(`${PATH}/:id`, write, async (c) => {
    await runCommand(() => deleteIpBlock(c.get("ctx"), staffAccount(c), pathId(c)));
    return c.json({});
  });

  return app;
}
