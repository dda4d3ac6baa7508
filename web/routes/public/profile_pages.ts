/**
 * Pages for browsers, negotiated with ActivityPub where a URL means both:
 * `/@username` is the profile page for people and the actor for fetchers
 * that ask for ActivityPub; `/users/username` (the actor id) sends browsers
 * to the profile page.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { collectionsOf } from "../../../db/queries/collections.ts";
import { collectionUrl } from "../../../model/collection_uris.ts";
import { couldBeUsername, findLocalAccount } from "../../../federation/dispatchers/local_actors.ts";
import { loadAccountEntities } from "../../../api/entities/account.ts";
import { serializeStatuses } from "../../../api/entities/status.ts";
import { accountStatuses } from "../../../db/queries/timelines.ts";
import { ProfilePage, type ProfileTab } from "../../pages/public/profile.tsx";
import {
  maxIdOf,
  olderLink,
  PAGE_LIMIT,
  publicViewer,
  sendMessagePage,
  sendPublicPage,
} from "./public_page_kit.ts";
import type { Context } from "hono";
import { localUris } from "../../../model/uris.ts";
import { subscriptionForm } from "./email_subscriptions.ts";

const ACTIVITYPUB_TYPES = ["application/activity+json", "application/ld+json"];
const HTML_TYPES = ["text/html", "application/xhtml+xml"];

/**
 * Whether the Accept header prefers ActivityPub over HTML. Browsers list
 * text/html (and `*\/*`), fetchers list activity+json or ld+json; quality
 * values break ties the way the client asked.
 */
export function prefersActivityPub(accept: string | undefined): boolean {
  if (!accept) return false;
  let ap = 0, html = 0;
  for (const part of accept.split(",")) {
    const [type, ...params] = part.trim().split(";").map((s) => s.trim());
    const qParam = params.find((p) => p.toLowerCase().startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    const mediaType = type.toLowerCase();
    if (ACTIVITYPUB_TYPES.includes(mediaType)) ap = Math.max(ap, q);
    if (HTML_TYPES.includes(mediaType)) html = Math.max(html, q);
  }
  return ap > 0 && ap >= html;
}

/** The page routes, mounted at the root of the app. */
export function pageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/:handle{@[^/]+}", async (c) => {
    const ctx = c.get("ctx");
    const { config } = ctx;
    const username = c.req.param("handle").slice(1);
    c.header("Vary", "Accept");
    const account = await findLocalAccount(ctx.database.db, username);
    if (prefersActivityPub(c.req.header("Accept"))) {
      if (!account) return c.json({ error: "Record not found" }, 404);
      // The actor itself, answered by Fedify exactly as at its id.
      const actorRequest = new Request(localUris(config.origin).actor(account.username), {
        headers: c.req.raw.headers,
      });
      return await ctx.federation.fetch(actorRequest, {
        contextData: ctx,
        onNotFound: () => new Response("Not Found", { status: 404 }),
        onNotAcceptable: () => new Response("Not Acceptable", { status: 406 }),
      });
    }
    return await profilePage(c, account, "posts");
  });

  app.get("/:handle{@[^/]+}/with_replies", async (c) => {
    const account = await findLocalAccount(
      c.get("ctx").database.db,
      c.req.param("handle").slice(1),
    );
    return await profilePage(c, account, "with_replies");
  });

  app.get("/:handle{@[^/]+}/media", async (c) => {
    const account = await findLocalAccount(
      c.get("ctx").database.db,
      c.req.param("handle").slice(1),
    );
    return await profilePage(c, account, "media");
  });

  // Reached when Fedify found the actor route not acceptable (a browser) or
  // found no such actor; only browsers are sent on to the profile page.
  app.get("/users/:username", (c) => {
    const username = c.req.param("username");
    if (!couldBeUsername(username) || prefersActivityPub(c.req.header("Accept"))) {
      return c.notFound();
    }
    c.header("Vary", "Accept");
    return c.redirect(localUris(c.get("ctx").config.origin).profile(username), 302);
  });

  return app;
}

/**
 * The profile page with one tab of the account's posts, as an anonymous
 * visitor may see them (db/queries/visibility.ts): public and unlisted,
 * never private or direct, nothing of a suspended account.
 */
async function profilePage(
  c: Context<ApiEnv>,
  account: Awaited<ReturnType<typeof findLocalAccount>>,
  tab: ProfileTab,
): Promise<Response> {
  const ctx = c.get("ctx");
  const { config, mediaUrls } = ctx;
  if (!account) return await sendMessagePage(c, 404, "Not found", "There is no such account here.");
  if (account.deletedAt) {
    return await sendMessagePage(c, 410, "Gone", "This account has been deleted.");
  }
  if (account.suspendedAt) {
    return await sendMessagePage(c, 410, "Suspended", "This account has been suspended.");
  }
  const [entity] = await loadAccountEntities(ctx.database.db, mediaUrls, [account.id]);
  if (!entity) return await sendMessagePage(c, 404, "Not found", "There is no such account here.");
  const maxId = maxIdOf(c);
  const rows = await accountStatuses(ctx.database.db, account.id, null, {
    excludeReplies: tab === "posts",
    onlyMedia: tab === "media",
  }, { maxId, sinceId: null, minId: null, limit: PAGE_LIMIT });
  // Pins head the first page of the posts tab, as on Mastodon's profile.
  const pinnedRows = tab === "posts" && maxId == null
    ? await accountStatuses(ctx.database.db, account.id, null, { pinned: true }, {
      maxId: null,
      sinceId: null,
      minId: null,
      limit: PAGE_LIMIT,
    })
    : [];
  // Its collections too, when it shows them (Mastodon 4.7's `show_featured`).
  const collectionRows = tab === "posts" && maxId == null && account.showFeatured
    ? await collectionsOf(ctx.database.db, account.id, null, { offset: 0, limit: PAGE_LIMIT })
    : [];
  const collections = collectionRows.map((r) => ({
    name: r.name,
    url: collectionUrl(config.origin, account.username, r.id),
    count: r.itemCount,
  }));
  const [statuses, pinned] = await Promise.all([
    serializeStatuses(ctx, rows, null, undefined, { context: "account" }),
    serializeStatuses(ctx, pinnedRows, null, undefined, { context: "account" }),
  ]);
  const path = localUris("").profile(account.username, tab === "posts" ? undefined : tab);
  c.header("Link", `<${account.uri}>; rel="alternate"; type="application/activity+json"`);
  const emailSubscription = await subscriptionForm(c, account);
  return await sendPublicPage(
    c,
    ProfilePage({
      account: entity,
      statuses,
      pinned,
      collections,
      tab,
      older: olderLink(path, rows),
      paged: maxId != null,
      instanceTitle: config.instance.title,
      origin: config.origin,
      viewer: await publicViewer(c),
      emailSubscription,
    }),
    200,
    // The form holds this browser's token (and may set its cookie): no shared cache keeps it.
    emailSubscription != null,
  );
}
