/**
 * GET /api/v1/donation_campaigns (Mastodon 4.6): the donation banner a
 * server may show its users. Mastodon asks a user token (any scope) and
 * answers 204 with no body when no campaign service is configured; Rookery
 * has none to configure, so that is its answer.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { requireUser } from "../middleware/scopes.ts";

/** The donation campaigns route, mounted at the root of the app. */
export function donationCampaignRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/api/v1/donation_campaigns", requireUser(), (c) => c.body(null, 204));
  return app;
}
