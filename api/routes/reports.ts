/**
 * Reports (user tokens):
 * - POST /api/v1/reports (write:reports): account_id (required), status_ids[],
 *   comment (≤ 1,000 characters), forward, forward_to_domains[], category
 *   (spam, legal, violation, other; `violation` whenever rule_ids[] is
 *   given), rule_ids[], collection_ids[] (the account's collections) → Report. 404 for an unknown or suspended account or
 *   a status that is not theirs or not visible to the reporter; 422 for the
 *   rest (actors/moderation/report_filing.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { readBoolean, readString, readStringArray } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { serializeReport } from "../entities/report.ts";
import { NotFoundError } from "../../model/errors.ts";
import {
  fileReport,
  REPORT_LIST_MAX,
  type ReportInput,
} from "../../actors/moderation/report_filing.ts";
import type { Params } from "../params.ts";

/**
 * The report's fields as the API takes them (the web app's report form
 * posts the same names); null without an `account_id` (a 404).
 */
export function readReportInput(p: Params): ReportInput | null {
  const list = { maxItems: REPORT_LIST_MAX };
  const targetAccountId = readString(p, "account_id", { maxLength: 64 });
  if (!targetAccountId) return null;
  return {
    targetAccountId,
    statusIds: readStringArray(p, "status_ids", list),
    // Its length is the command's to judge (the body parser bounds the input).
    comment: readString(p, "comment", { allowBlank: true }),
    forward: readBoolean(p, "forward") ?? false,
    forwardToDomains: readStringArray(p, "forward_to_domains", list),
    category: readString(p, "category", { maxLength: 64 }),
    ruleIds: readStringArray(p, "rule_ids", list),
    collectionIds: readStringArray(p, "collection_ids", list),
  };
}

/** The report routes, mounted at the root of the app. */
export function reportRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post("/api/v1/reports", requireUser("write:reports"), async (c) => {
    const input = readReportInput(await params(c));
    if (!input) throw new ApiError(404, "Record not found");
    const ctx = c.get("ctx");
    try {
      const report = await withValidation(() => fileReport(ctx, c.get("user")!.accountId, input));
      return c.json(await serializeReport(ctx, report));
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
  });
  return app;
}
