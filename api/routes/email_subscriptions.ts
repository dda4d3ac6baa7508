/**
 * POST /api/v1/accounts/:account_id/email_subscriptions (Mastodon 4.7):
 * a visitor asks for an account's new public posts by e-mail. Public: no
 * token needed, and one of any scope changes nothing. Param `email`.
 * - 200 `{}` when accepted, also for an address already subscribed or
 *   pending (the answer never tells which);
 * - 422 `{"error":"Validation failed: Email is invalid","details":…}` for a
 *   blank, too long, malformed, blocked or unreachable address;
 * - 404 when the account takes no subscriptions
 *   (actors/email_subscriptions/gates.ts);
 * - 429 after 10 requests from one address in 30 minutes (the rate limits)
 *   or 100 new unconfirmed subscriptions to the account in an hour.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { withValidation } from "../validation_errors.ts";
import { NotFoundError } from "../../model/errors.ts";
import {
  subscribe,
  SubscriptionsThrottled,
} from "../../actors/email_subscriptions/subscriptions.ts";
import { TOO_MANY_REQUESTS } from "../middleware/rate_limit.ts";

/** The e-mail subscription route, mounted at the root of the app. */
export function emailSubscriptionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post("/api/v1/accounts/:account_id{[0-9]+}/email_subscriptions", async (c) => {
    const p = await params(c);
    const email = typeof p.email === "string" ? p.email : "";
    const locale = typeof p.locale === "string" ? p.locale : undefined;
    try {
      await withValidation(() => subscribe(c.get("ctx"), c.req.param("account_id"), email, locale));
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      if (error instanceof SubscriptionsThrottled) throw new ApiError(429, TOO_MANY_REQUESTS);
      throw error;
    }
    return c.json({});
  });
  return app;
}
