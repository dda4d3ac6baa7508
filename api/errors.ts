/**
 * Mastodon's error shapes. Every route answers errors through these helpers
 * so clients always get `{"error": "..."}` (plus `details` or OAuth's
 * `error_description` where Mastodon sends them), and never an HTML 500.
 */
import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "./env.ts";
import { MediaStoreUnavailable } from "../actors/media/store/mod.ts";
import { isConnectionLoss } from "../db/postgres_transactions.ts";

const logger = getLogger(["rookery", "http"]);

/** A thrown error that becomes a Mastodon-shaped response. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** 422 with Mastodon's "Validation failed: …" wording. */
export function validationFailed(reason: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError(422, `Validation failed: ${reason}`, extra);
}

export function apiError(
  c: Context,
  status: ContentfulStatusCode,
  message: string,
  extra: Record<string, unknown> = {},
): Response {
  return c.json({ error: message, ...extra }, status);
}

export function installErrorHandlers(app: Hono<ApiEnv>): void {
  app.onError((err, c) => {
    if (err instanceof ApiError) return apiError(c, err.status, err.message, err.extra);
    if (err instanceof HTTPException) {
      const res = err.getResponse();
      if (res.status === 413) return apiError(c, 413, "Request entity too large");
      return apiError(c, err.status as ContentfulStatusCode, err.message || "Bad request");
    }
    // Mastodon's answer when its storage server does not respond; a
    // database connection lost mid-request (a PostgreSQL restart or
    // failover) is as temporary: the pool reconnects for the next request.
    if (err instanceof MediaStoreUnavailable || isConnectionLoss(err)) {
      logger.warning("Temporary failure on {path}: {error}", { path: c.req.path, error: err });
      c.header("Retry-After", "30");
      return apiError(
        c,
        503,
        "There was a temporary problem serving your request, please try again",
      );
    }
    logger.error("Unhandled error on {method} {path}: {error}", {
      method: c.req.method,
      path: c.req.path,
      error: err,
    });
    return apiError(c, 500, "An unexpected error occurred");
  });
}
