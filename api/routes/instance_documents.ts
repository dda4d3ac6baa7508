/**
 * The operator's legal documents, from the files PRIVACY_POLICY_FILE and
 * TERMS_OF_SERVICE_FILE name (config.ts):
 * - GET /api/v1/instance/privacy_policy (public, 4.0) → PrivacyPolicy
 *   `{updated_at, content}`
 * - GET /api/v1/instance/terms_of_service (public, 4.4) → TermsOfService
 *   `{effective_date, effective, content, succeeded_by}`
 * - GET /api/v1/instance/terms_of_service/:date → the same when `:date` is
 *   its effective date
 * The same text as a page (/privacy-policy and /terms-of-service, which
 * /api/v2/instance links to: `configuration.urls`) is web/routes/public/
 * instance_pages.ts's.
 *
 * Decisions:
 * - A document that is not configured answers 404 "Record not found", as
 *   Mastodon does for terms it does not have. We do not fall back to
 *   Mastodon's built-in privacy policy: it promises things (IP retention,
 *   2FA) that are not true here.
 * - The file is read when asked for, so an operator's edit shows at once;
 *   its modification time is `updated_at` (and the terms' effective date:
 *   one file is one version, always in effect, succeeded by none).
 * - Markdown is rendered with `marked`; a file whose name ends in .html is
 *   taken as HTML. Either way the text is the operator's own and is served
 *   as written, as Mastodon serves what an admin typed.
 * - A configured file that cannot be read answers 404 and logs a warning:
 *   a broken setting must not take the instance API down.
 */
import { Hono } from "hono";
import { marked } from "marked";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";
import type { Config } from "../../config.ts";
import { apiError } from "../errors.ts";

const logger = getLogger(["rookery", "http", "instance"]);

/** Larger files are refused: a legal text is far smaller. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** A document ready to serve. */
export interface InstanceDocument {
  /** HTML. */
  content: string;
  updatedAt: Date;
}

type Kind = "privacy" | "terms";

function fileOf(config: Config, kind: Kind): string | null {
  return kind === "privacy"
    ? config.instance.privacyPolicyFile
    : config.instance.termsOfServiceFile;
}

/** Reads and renders a configured document; null when none is configured or it cannot be read. */
export async function loadInstanceDocument(
  config: Config,
  kind: Kind,
): Promise<InstanceDocument | null> {
  const path = fileOf(config, kind);
  if (!path) return null;
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_DOCUMENT_BYTES) {
      logger.warn("{path} is not a file of at most 1 MiB; not served.", { path });
      return null;
    }
    const text = new TextDecoder().decode(await Deno.readFile(path));
    const content = /\.html?$/i.test(path)
      ? text.trim()
      : (await marked.parse(text, { async: true })).trim();
    return { content, updatedAt: info.mtime ?? new Date(0) };
  } catch (error) {
    logger.warn("Cannot read {path}: {error}", { path, error: String(error) });
    return null;
  }
}

/** YYYY-MM-DD in UTC: a document's date. */
export function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The TermsOfService entity of a document. */
function termsEntity(doc: InstanceDocument) {
  return {
    effective_date: day(doc.updatedAt),
    effective: true,
    content: doc.content,
    succeeded_by: null,
  };
}

/** The document routes, mounted by instance.ts. */
export function instanceDocumentRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const notFound = "Record not found";

  app.get("/api/v1/instance/privacy_policy", async (c) => {
    const doc = await loadInstanceDocument(c.get("ctx").config, "privacy");
    if (!doc) return apiError(c, 404, notFound);
    return c.json({ updated_at: doc.updatedAt.toISOString(), content: doc.content });
  });

  app.get("/api/v1/instance/terms_of_service", async (c) => {
    const doc = await loadInstanceDocument(c.get("ctx").config, "terms");
    if (!doc) return apiError(c, 404, notFound);
    return c.json(termsEntity(doc));
  });

  app.get("/api/v1/instance/terms_of_service/:date", async (c) => {
    const doc = await loadInstanceDocument(c.get("ctx").config, "terms");
    if (!doc || c.req.param("date") !== day(doc.updatedAt)) return apiError(c, 404, notFound);
    return c.json(termsEntity(doc));
  });

  return app;
}
