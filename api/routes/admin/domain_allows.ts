/**
 * Admin API, the allow-list of limited federation (Mastodon's
 * Api::V1::Admin::DomainAllowsController), for roles with manage_federation:
 * - GET /api/v1/admin/domain_allows (admin:read:domain_allows): newest
 *   first, Link paging (100, at most 200).
 * - GET /api/v1/admin/domain_allows/:id → Admin::DomainAllow, 404 unknown.
 * - POST /api/v1/admin/domain_allows (admin:write:domain_allows): domain;
 *   an already allowed domain answers its existing allow. 422 for a bad domain.
 * - DELETE /api/v1/admin/domain_allows/:id → {}; with FEDERATION_MODE=allowlist
 *   the domain's accounts are suspended and purged (UnallowDomainService).
 * The allow-list matters when FEDERATION_MODE=allowlist (actors/moderation/domain_rules.ts).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { params } from "../../params.ts";
import { readString } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { withValidation } from "../../validation_errors.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../../pagination.ts";
import { serializeAdminDomainAllow } from "../../entities/admin_domain_allow.ts";
import { NotFoundError } from "../../../model/errors.ts";
import {
  createDomainAllow,
  findDomainAllow,
  listDomainAllows,
  removeDomainAllow,
  type Target,
} from "../../../actors/moderation/instance_domain_blocks.ts";

const READ = requireStaff("manage_federation", "admin:read:domain_allows");
const WRITE = requireStaff("manage_federation", "admin:write:domain_allows");

function target(c: Context<ApiEnv>): Target {
  const { database, core } = c.get("ctx");
  return { db: database.db, rules: core.domainRules };
}

export function adminDomainAllowRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/admin/domain_allows", READ, async (c) => {
    const page = readPageParams(await params(c), PAGE_SIZES.admin);
    const rows = await listDomainAllows(c.get("ctx").database.db, page);
    setPaginationHeaders(c, rows, (row) => row.id);
    return c.json(rows.map(serializeAdminDomainAllow));
  });

  app.get("/api/v1/admin/domain_allows/:id", READ, async (c) => {
    try {
      const row = await findDomainAllow(c.get("ctx").database.db, c.req.param("id"));
      return c.json(serializeAdminDomainAllow(row));
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
  });

  app.post("/api/v1/admin/domain_allows", WRITE, async (c) => {
    const p = await params(c);
    const domain = readString(p, "domain", { allowBlank: true, maxLength: 300 }) ?? "";
    const row = await withValidation(() =>
      createDomainAllow(target(c), c.get("user")!.accountId, domain)
    );
    return c.json(serializeAdminDomainAllow(row));
  });

  app.delete("/api/v1/admin/domain_allows/:id", WRITE, async (c) => {
    try {
      await removeDomainAllow(target(c), c.get("user")!.accountId, c.req.param("id"), {
        purge: c.get("ctx").config.federationMode === "allowlist",
      });
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
    return c.json({});
  });

  return app;
}
