/**
 * Admin e-mail domain blocks (manage_blocks; admin:read:email_domain_blocks
 * or admin:write:email_domain_blocks):
 * - GET /api/v1/admin/email_domain_blocks (max_id, since_id, min_id, limit ≤ 200) → [Admin::EmailDomainBlock]
 * - GET /api/v1/admin/email_domain_blocks/:id → Admin::EmailDomainBlock
 * - POST /api/v1/admin/email_domain_blocks (domain, allow_with_approval) → Admin::EmailDomainBlock
 * - DELETE /api/v1/admin/email_domain_blocks/:id → {}
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { params } from "../../params.ts";
import { readBoolean, readString } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import {
  serializeEmailDomainBlock,
  serializeEmailDomainBlocks,
} from "../../entities/admin_email_domain_block.ts";
import {
  createEmailDomainBlock,
  deleteEmailDomainBlock,
  getEmailDomainBlock,
  listEmailDomainBlocks,
} from "../../../actors/access_blocks/email_domain_blocks.ts";
import { blockPage, linkBlocks, pathId, runCommand, staffAccount } from "./block_helpers.ts";

const PATH = "/api/v1/admin/email_domain_blocks";
const read = requireStaff("manage_blocks", "admin:read:email_domain_blocks");
const write = requireStaff("manage_blocks", "admin:write:email_domain_blocks");

/** The routes, mounted at the root of the app. */
export function adminEmailDomainBlockRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(PATH, read, async (c) => {
    const { db } = c.get("ctx").database;
    const page = blockPage(await params(c));
    const rows = await listEmailDomainBlocks(db, page);
    linkBlocks(c, rows, page.limit);
    return c.json(await serializeEmailDomainBlocks(db, rows));
  });

  app.get(`${PATH}/:id`, read, async (c) => {
    const { db } = c.get("ctx").database;
    const row = await runCommand(() => getEmailDomainBlock(db, pathId(c)));
    return c.json(await serializeEmailDomainBlock(db, row));
  });

  app.post(PATH, write, async (c) => {
    const { db } = c.get("ctx").database;
    const p = await params(c);
    const input = {
      domain: readString(p, "domain", { maxLength: 1_000 }),
      allowWithApproval: readBoolean(p, "allow_with_approval"),
    };
    const row = await runCommand(() => createEmailDomainBlock(db, staffAccount(c), input));
    return c.json(await serializeEmailDomainBlock(db, row));
  });

  app.delete(`${PATH}/:id`, write, async (c) => {
    const { db } = c.get("ctx").database;
    await runCommand(() => deleteEmailDomainBlock(db, staffAccount(c), pathId(c)));
    return c.json({});
  });

  return app;
}
