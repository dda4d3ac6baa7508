/**
 * Admin API, instance domain blocks (Mastodon's
 * Api::V1::Admin::DomainBlocksController), for roles with manage_federation:
 * - GET /api/v1/admin/domain_blocks (admin:read:domain_blocks): newest
 *   first, max_id/since_id/min_id/limit (100, at most 200), Link header.
 * - GET /api/v1/admin/domain_blocks/:id → Admin::DomainBlock, 404 unknown.
 * - POST /api/v1/admin/domain_blocks (admin:write:domain_blocks): domain,
 *   severity (silence default, suspend, noop), reject_media, reject_reports,
 *   private_comment, public_comment, obfuscate. 422 for a bad domain or
 *   severity; 422 with `existing_domain_block` when the domain (or a parent)
 *   already has a block at least as strict.
 * - PUT /api/v1/admin/domain_blocks/:id: the same fields but the domain.
 * - DELETE /api/v1/admin/domain_blocks/:id → {} (the block is lifted).
 * The commands are actors/moderation/instance_domain_blocks.ts; each writes an audit row.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { type Params, params } from "../../params.ts";
import { readBoolean, readString } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { withValidation } from "../../validation_errors.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../../pagination.ts";
import { serializeAdminDomainBlock } from "../../entities/admin_domain_block.ts";
import { NotFoundError } from "../../../model/errors.ts";
import {
  COMMENT_MAX,
  createDomainBlock,
  type DomainBlockInput,
  ExistingDomainBlockError,
  findDomainBlock,
  listDomainBlocks,
  removeDomainBlock,
  type Target,
  updateDomainBlock,
} from "../../../actors/moderation/instance_domain_blocks.ts";

const READ = requireStaff("manage_federation", "admin:read:domain_blocks");
const WRITE = requireStaff("manage_federation", "admin:write:domain_blocks");

function readInput(p: Params): DomainBlockInput {
  const comment = (key: string) => {
    const value = readString(p, key, { allowBlank: true, maxLength: COMMENT_MAX });
    return value === undefined ? undefined : value.trim() === "" ? null : value;
  };
  return {
    severity: readString(p, "severity", { maxLength: 32 }),
    rejectMedia: readBoolean(p, "reject_media"),
    rejectReports: readBoolean(p, "reject_reports"),
    privateComment: comment("private_comment"),
    publicComment: comment("public_comment"),
    obfuscate: readBoolean(p, "obfuscate"),
  };
}

async function notFoundAs404<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    throw error;
  }
}

function target(c: Context<ApiEnv>): Target {
  const { database, core } = c.get("ctx");
  return { db: database.db, rules: core.domainRules };
}

export function adminDomainBlockRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/admin/domain_blocks", READ, async (c) => {
    const page = readPageParams(await params(c), PAGE_SIZES.admin);
    const rows = await listDomainBlocks(c.get("ctx").database.db, page);
    setPaginationHeaders(c, rows, (row) => row.id);
    return c.json(rows.map(serializeAdminDomainBlock));
  });

  app.get("/api/v1/admin/domain_blocks/:id", READ, async (c) => {
    const row = await notFoundAs404(() =>
      findDomainBlock(c.get("ctx").database.db, c.req.param("id"))
    );
    return c.json(serializeAdminDomainBlock(row));
  });

  app.post("/api/v1/admin/domain_blocks", WRITE, async (c) => {
    const p = await params(c);
    const domain = readString(p, "domain", { allowBlank: true, maxLength: 300 }) ?? "";
    const input = readInput(p);
    try {
      const row = await withValidation(() =>
        createDomainBlock(target(c), c.get("user")!.accountId, domain, input)
      );
      return c.json(serializeAdminDomainBlock(row));
    } catch (error) {
      if (!(error instanceof ExistingDomainBlockError)) throw error;
      return c.json({
        error: error.message,
        existing_domain_block: serializeAdminDomainBlock(error.existing),
      }, 422);
    }
  });

  app.on(["PUT", "PATCH"], "/api/v1/admin/domain_blocks/:id", WRITE, async (c) => {
    const input = readInput(await params(c));
    const row = await notFoundAs404(() =>
      withValidation(() =>
        updateDomainBlock(target(c), c.get("user")!.accountId, c.req.param("id"), input)
      )
    );
    return c.json(serializeAdminDomainBlock(row));
  });

  app.delete("/api/v1/admin/domain_blocks/:id", WRITE, async (c) => {
    await notFoundAs404(() =>
      removeDomainBlock(target(c), c.get("user")!.accountId, c.req.param("id"))
    );
    return c.json({});
  });

  return app;
}
