/**
 * The HTTP application: Fedify answers the ActivityPub and discovery routes,
 * Hono everything else (Mastodon API, OAuth, HTML pages).
 *
 * Middleware order matters:
 * 1. CORS first, so every answer below it (Fedify's WebFinger and NodeInfo,
 *    429s, errors) carries the headers, and preflights stop here.
 * 2. Addresses under a no_access IP block are refused (middleware/ip_access.ts).
 * 3. Authentication, then rate limits (per-account buckets need the token's
 *    user), on the API and OAuth paths only; in authorized-fetch mode the
 *    API then refuses requests without a user (middleware/require_user.ts).
 * 4. Fedify, for everything that is not an API path.
 * 5. Routes.
 */
import { type Context, Hono, type Next } from "hono";
import type { AppContext } from "./context.ts";
import type { ApiEnv } from "./api/env.ts";
import { apiError, installErrorHandlers } from "./api/errors.ts";
import { cors } from "./api/middleware/cors.ts";
import { authenticate } from "./api/middleware/auth.ts";
import { rateLimit } from "./api/middleware/rate_limit.ts";
import { ipAccess } from "./api/middleware/ip_access.ts";
import { requireUserInAuthorizedFetch } from "./api/middleware/require_user.ts";
import { unauthorizedFetch } from "./federation/dispatchers/authorized_fetch.ts";
import { serveFeaturedCollections } from "./federation/dispatchers/featured_collections.ts";
import { instanceRoutes } from "./api/routes/instance.ts";
import { instanceDomainBlockRoutes } from "./api/routes/instance_domain_blocks.ts";
import { adminDomainBlockRoutes } from "./api/routes/admin/domain_blocks.ts";
import { adminDomainAllowRoutes } from "./api/routes/admin/domain_allows.ts";
import { customEmojiRoutes } from "./api/routes/custom_emojis.ts";
import { healthRoutes } from "./api/routes/health.ts";
import { staticImageRoutes } from "./api/routes/static_images.ts";
import { assetRoutes } from "./web/routes/assets.ts";
import { pageRoutes } from "./web/routes/public/profile_pages.ts";
import { feedRoutes } from "./web/routes/public/feeds.ts";
import { instancePageRoutes } from "./web/routes/public/instance_pages.ts";
import { tagPageRoutes } from "./web/routes/public/tag_pages.ts";
import { collectionPageRoutes } from "./web/routes/public/collection_pages.ts";
import { emailSubscriptionPageRoutes } from "./web/routes/public/email_subscriptions.ts";
import { appRoutes } from "./api/routes/apps.ts";
import { oauthRoutes } from "./api/routes/oauth.ts";
import { authorizeRoutes } from "./web/routes/auth/oauth_authorize.ts";
import { signInRoutes } from "./web/routes/auth/sign_in.ts";
import { webAccountRoutes } from "./web/routes/auth/mod.ts";
import { adminWebRoutes } from "./web/routes/admin/mod.ts";
import { dataSettingsRoutes } from "./web/routes/settings/data.tsx";
import { movingSettingsRoutes } from "./web/routes/settings/moving.tsx";
import { deletionSettingsRoutes } from "./web/routes/settings/deletion.tsx";
import { emailSubscriptionSettingsRoutes } from "./web/routes/settings/email_subscriptions.tsx";
import { profileSettingsRoutes } from "./web/routes/settings/profile.tsx";
import { accountSettingsRoutes } from "./web/routes/settings/account.tsx";
import { interactionRequestSettingsRoutes } from "./web/routes/settings/interaction_requests.tsx";
import { interactionSettingsRoutes } from "./web/routes/settings/interactions.tsx";
import { archiveSettingsRoutes } from "./web/routes/settings/archive.tsx";
import { accountRoutes } from "./api/routes/accounts.ts";
import { ownAccountRoutes } from "./api/routes/accounts_own.ts";
import { emailConfirmationRoutes } from "./api/routes/email_confirmations.ts";
import { mediaRoutes } from "./api/routes/media.ts";
import { mediaFileRoutes } from "./api/routes/media_files.ts";
import { mediaProxyRoutes } from "./api/routes/media_proxy.ts";
import { relationshipRoutes } from "./api/routes/relationships.ts";
import { followRequestRoutes } from "./api/routes/follow_requests.ts";
import { interactionRequestRoutes } from "./api/routes/interaction_requests.ts";
import { interactionPolicyRoutes } from "./api/routes/interaction_policies.ts";
import { blockAndMuteRoutes } from "./api/routes/blocks_mutes.ts";
import { domainBlockRoutes } from "./api/routes/domain_blocks.ts";
import { reportRoutes } from "./api/routes/reports.ts";
import { adminReportRoutes } from "./api/routes/admin/reports.ts";
import { adminAccountRoutes } from "./api/routes/admin/accounts.ts";
import { adminMetricsRoutes } from "./api/routes/admin/metrics.ts";
import { adminTagRoutes } from "./api/routes/admin/tags.ts";
import { adminTrendRoutes } from "./api/routes/admin/trends.ts";
import { statusReadRoutes } from "./api/routes/statuses.ts";
import { asyncRefreshRoutes } from "./api/routes/async_refreshes.ts";
import { statusWriteRoutes } from "./api/routes/statuses_write.ts";
import { translationRoutes } from "./api/routes/translations.ts";
import { statusPageRoutes } from "./web/routes/public/status_pages.ts";
import { notificationRoutes } from "./api/routes/notifications.ts";
import { notificationPolicyRoutes } from "./api/routes/notification_policy.ts";
import { groupedNotificationRoutes } from "./api/routes/notifications_grouped.ts";
import { tagRoutes } from "./api/routes/tags.ts";
import { featuredTagRoutes } from "./api/routes/featured_tags.ts";
import { pollRoutes } from "./api/routes/polls.ts";
import { scheduledStatusRoutes } from "./api/routes/scheduled_statuses.ts";
import { interactionRoutes } from "./api/routes/interactions.ts";
import { favouriteAndBookmarkRoutes } from "./api/routes/favourites_bookmarks.ts";
import { timelineRoutes } from "./api/routes/timelines.ts";
import { listRoutes } from "./api/routes/lists.ts";
import { accountStatusesRoutes } from "./api/routes/account_statuses.ts";
import { markerRoutes } from "./api/routes/markers.ts";
import { conversationRoutes } from "./api/routes/conversations.ts";
import { discoveryRoutes } from "./api/routes/discovery.ts";
import { filterRoutes } from "./api/routes/filters.ts";
import { v1FilterRoutes } from "./api/routes/filters_v1.ts";
import { announcementRoutes } from "./api/routes/announcements.ts";
import { oembedRoutes } from "./web/routes/public/oembed.ts";
import { searchRoutes } from "./api/routes/search.ts";
import { streamingRoutes } from "./api/streaming/routes.ts";
import { pushRoutes } from "./api/routes/push.ts";
import { adminEmailDomainBlockRoutes } from "./api/routes/admin/email_domain_blocks.ts";
import { adminIpBlockRoutes } from "./api/routes/admin/ip_blocks.ts";
import { adminCanonicalEmailBlockRoutes } from "./api/routes/admin/canonical_email_blocks.ts";
import { annualReportRoutes } from "./api/routes/annual_reports.ts";
import { collectionRoutes } from "./api/routes/collections.ts";
import { profileRoutes } from "./api/routes/profile.ts";
import { donationCampaignRoutes } from "./api/routes/donation_campaigns.ts";
import { emailSubscriptionRoutes } from "./api/routes/email_subscriptions.ts";
import { tooManyRequests } from "./web/routes/too_many_requests.ts";
import { webAppRoutes } from "./web/routes/app/mod.ts";
import { answeringRoute } from "./api/route_label.ts";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Paths that never belong to Fedify; skipping it there keeps the API path short. */
function isApiPath(path: string): boolean {
  return path.startsWith("/api/") || path.startsWith("/oauth/") || path === "/health";
}

/** Errors that parsing a malformed activity throws (jsonld.*, TypeError, RangeError, SyntaxError). */
function isUnreadableActivity(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return /^jsonld\./.test(error.name) || error instanceof TypeError ||
    error instanceof RangeError || error instanceof SyntaxError;
}

/** The response with `Signature` added to its Vary header (copied when its headers are immutable). */
function varyBySignature(res: Response): Response {
  const vary = res.headers.get("vary");
  if (vary && /\bsignature\b/i.test(vary)) return res;
  const value = vary ? `${vary}, Signature` : "Signature";
  try {
    res.headers.set("Vary", value);
    return res;
  } catch {
    const headers = new Headers(res.headers);
    headers.set("Vary", value);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}

export function createApp(ctx: AppContext): Hono<ApiEnv> {
  // Not strict: Rails ignores a trailing slash, and clients rely on it
  // (Mastodon.py 1.x calls `/api/v1/instance/` and `/api/v1/conversations/`).
  const app = new Hono<ApiEnv>({ strict: false });
  installErrorHandlers(app);

  app.use(async (c, next) => {
    c.set("ctx", ctx);
    c.set("token", null);
    c.set("user", null);
    c.set("staff", null);
    // A request that may write marks the entity cache before and after, so
    // this process's next read sees its own writes (entity_cache.ts).
    const writes = !READ_METHODS.has(c.req.method);
    if (writes) ctx.core.writes.mark();
    try {
      await next();
    } finally {
      if (writes) ctx.core.writes.mark();
      if (c.env?.route) c.env.route.route = answeringRoute(c);
    }
  });
  app.use(cors());
  app.use(ipAccess());
  app.use("/api/*", authenticate());
  app.use("/oauth/*", authenticate());
  // Browsers' forms get their 429 as a page (web/), clients as JSON.
  app.use(rateLimit(tooManyRequests));
  app.use("/api/*", requireUserInAuthorizedFetch());

  app.use(async (c, next) => {
    if (isApiPath(c.req.path)) return await next();
    try {
      const res = await fedifyFetch(c, next);
      // Signed and unsigned readers get different answers (a 401, the
      // key-only actor): a shared cache must keep them apart, as Mastodon asks.
      if (ctx.config.authorizedFetch && res.headers.get("content-type")?.includes("json")) {
        return varyBySignature(res);
      }
      return res;
    } catch (error) {
      // A delivery that JSON-LD or Fedify's vocabulary cannot read (the
      // inbox guard refuses the usual shapes first): the sender's mistake,
      // not ours. Listeners run later, from the queue, so nothing of ours
      // throws these here.
      if (c.req.method === "POST" && isUnreadableActivity(error)) {
        return c.json({ error: "Invalid activity" }, 400);
      }
      throw error;
    }
  });

  const fedifyFetch = async (c: Context<ApiEnv>, next: Next) => {
    // Fedify answered itself unless it handed the request on (onNotFound, onNotAcceptable).
    c.set("answeredByFederation", true);
    return await ctx.federation.fetch(c.req.raw, {
      contextData: ctx,
      // Authorized fetch refused an object or a collection (federation/dispatchers/authorized_fetch.ts).
      onUnauthorized: unauthorizedFetch,
      onNotFound: async () => {
        c.set("answeredByFederation", undefined);
        await next();
        return c.res;
      },
      onNotAcceptable: async () => {
        c.set("answeredByFederation", undefined);
        // An HTML page of ours may still answer (profile pages are negotiated).
        await next();
        if (c.res.status !== 404) return c.res;
        return new Response("Not Acceptable", {
          status: 406,
          headers: { "Content-Type": "text/plain", Vary: "Accept" },
        });
      },
    });
  };

  app.route("/", healthRoutes());
  app.route("/", instanceRoutes());
  app.route("/", instanceDomainBlockRoutes());
  app.route("/", adminDomainBlockRoutes());
  app.route("/", adminDomainAllowRoutes());
  app.route("/", customEmojiRoutes());
  app.route("/", staticImageRoutes());
  app.route("/", assetRoutes());
  app.route("/", appRoutes());
  app.route("/", oauthRoutes());
  app.route("/", authorizeRoutes());
  app.route("/", signInRoutes());
  app.route("/", webAccountRoutes());
  app.route("/", adminWebRoutes());
  app.route("/", dataSettingsRoutes());
  app.route("/", movingSettingsRoutes());
  app.route("/", deletionSettingsRoutes());
  app.route("/", emailSubscriptionSettingsRoutes());
  app.route("/", profileSettingsRoutes());
  app.route("/", accountSettingsRoutes());
  app.route("/", interactionRequestSettingsRoutes());
  app.route("/", interactionSettingsRoutes());
  app.route("/", archiveSettingsRoutes());
  app.route("/", ownAccountRoutes());
  app.route("/", emailConfirmationRoutes());
  app.route("/", mediaRoutes());
  app.route("/", mediaFileRoutes());
  app.route("/", mediaProxyRoutes());
  app.route("/", accountRoutes());
  app.route("/", relationshipRoutes());
  app.route("/", followRequestRoutes());
  app.route("/", interactionRequestRoutes());
  app.route("/", interactionPolicyRoutes());
  app.route("/", blockAndMuteRoutes());
  app.route("/", domainBlockRoutes());
  app.route("/", reportRoutes());
  app.route("/", adminReportRoutes());
  app.route("/", adminAccountRoutes());
  app.route("/", adminMetricsRoutes());
  app.route("/", adminTagRoutes());
  app.route("/", adminTrendRoutes());
  app.route("/", statusReadRoutes());
  app.route("/", asyncRefreshRoutes());
  app.route("/", statusWriteRoutes());
  app.route("/", translationRoutes());
  // Before the plain notification routes: their `:id` would take "policy" and "requests".
  app.route("/", notificationPolicyRoutes());
  app.route("/", notificationRoutes());
  app.route("/", groupedNotificationRoutes());
  app.route("/", tagRoutes());
  app.route("/", featuredTagRoutes());
  app.route("/", pollRoutes());
  app.route("/", scheduledStatusRoutes());
  app.route("/", interactionRoutes());
  app.route("/", favouriteAndBookmarkRoutes());
  app.route("/", timelineRoutes());
  app.route("/", listRoutes());
  app.route("/", accountStatusesRoutes());
  app.route("/", markerRoutes());
  app.route("/", conversationRoutes());
  app.route("/", discoveryRoutes());
  app.route("/", filterRoutes());
  app.route("/", v1FilterRoutes());
  app.route("/", announcementRoutes());
  app.route("/", searchRoutes());
  app.route("/", streamingRoutes());
  app.route("/", pushRoutes());
  app.route("/", adminEmailDomainBlockRoutes());
  app.route("/", adminIpBlockRoutes());
  app.route("/", adminCanonicalEmailBlockRoutes());
  app.route("/", annualReportRoutes());
  app.route("/", collectionRoutes());
  app.route("/", profileRoutes());
  app.route("/", donationCampaignRoutes());
  app.route("/", emailSubscriptionRoutes());
  // Later route groups (accounts, statuses, OAuth, pages…) are mounted below.
  app.route("/", oembedRoutes());
  // Before the pages: `/@name.rss` would otherwise be taken for a profile.
  app.route("/", feedRoutes());
  // The web app: before the public pages, whose paths it shares with a live session.
  app.route("/", webAppRoutes());
  app.route("/", instancePageRoutes());
  app.route("/", tagPageRoutes());
  app.route("/", collectionPageRoutes());
  app.route("/", emailSubscriptionPageRoutes());
  app.route("/", statusPageRoutes());
  // FEP-7aa9 documents Fedify has no dispatcher for (federation/dispatchers/featured_collections.ts).
  app.get("/users/:username/*", async (c, next) => {
    const res = await serveFeaturedCollections(ctx, c.req.raw);
    if (res) return res;
    await next();
  });
  app.route("/", pageRoutes());

  app.notFound((c) => {
    if (isApiPath(c.req.path)) return apiError(c, 404, "Record not found");
    return c.text("Not Found", 404);
  });
  return app;
}
