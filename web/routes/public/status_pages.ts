/**
 * Status URLs for browsers and fetchers:
 * - `/@username/<id>`: the HTML page; with an ActivityPub Accept, the Note
 *   exactly as served at its id.
 * - `/statuses/<id>/history`: a post's versions for visitors, as GET
 *   /api/v1/statuses/:id/history answers anyone (any post they may see,
 *   here or remote; the web app serves a session its own page first).
 * - `/users/username/statuses/<id>` (the id): Fedify's object dispatcher
 *   answers first; it hands over here when it has nothing to serve, and we
 *   answer a 410 Tombstone for a deleted status, a redirect to the page for
 *   browsers, and 404 otherwise.
 *
 * Only what an anonymous viewer may see is shown (public and unlisted); a
 * private, direct or missing status is the same 404.
 *
 * In authorized-fetch mode the ActivityPub answers here (the Note at its
 * page URL, a Tombstone) need a signed request, as at the id
 * (federation/dispatchers/authorized_fetch.ts); the HTML pages stay public.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { prefersActivityPub } from "./profile_pages.ts";
import { findLocalAccount } from "../../../federation/dispatchers/local_actors.ts";
import { findLocalStatus } from "../../../federation/objects/note.ts";
import {
  authorizeFetch,
  unauthorizedFetch,
} from "../../../federation/dispatchers/authorized_fetch.ts";
import { Note } from "@fedify/vocab";
import { canSeeStatus } from "../../../db/queries/visibility.ts";
import { serializeStatuses } from "../../../api/entities/status.ts";
import { loadAccountEntities } from "../../../api/entities/account.ts";
import { ancestors, CONTEXT_LIMITS, descendants } from "../../../api/routes/statuses.ts";
import { ThreadPage } from "../../pages/public/thread.tsx";
import { HistoryPage } from "../../pages/public/history.tsx";
import { readStatus } from "../../../api/reads/statuses.ts";
import { loadStatusHistory } from "../../../api/entities/status_edit.ts";
import { publicViewer, sendMessagePage, sendPublicPage } from "./public_page_kit.ts";
import { localUris } from "../../../model/uris.ts";

async function lookup(c: Context<ApiEnv>, username: string, id: string) {
  const ctx = c.get("ctx");
  const account = await findLocalAccount(ctx.database.db, username);
  if (!account) return { account: null, status: null };
  const status = await findLocalStatus(ctx.database.db, account.username, id);
  return { account, status };
}

/** Whether authorized fetch lets this request read `username`'s statuses as ActivityPub. */
async function mayFetch(c: Context<ApiEnv>, username: string): Promise<boolean> {
  const ctx = c.get("ctx");
  if (!ctx.config.authorizedFetch) return true;
  return await authorizeFetch(ctx.federation.createContext(c.req.raw, ctx), username);
}

async function tombstone(
  c: Context<ApiEnv>,
  username: string,
  uri: string,
  deletedAt: Date,
): Promise<Response> {
  if (!await mayFetch(c, username)) return unauthorizedFetch();
  return c.body(
    JSON.stringify({
      "@context": "https://www.w3.org/ns/activitystreams",
      id: uri,
      type: "Tombstone",
      deleted: deletedAt.toISOString(),
    }),
    410,
    { "Content-Type": "application/activity+json", Vary: "Accept" },
  );
}

/** The status page routes, mounted at the root of the app (before the profile page). */
export function statusPageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/:handle{@[^/]+}/:id{[0-9]{1,19}}", async (c) => {
    const ctx = c.get("ctx");
    const { config, mediaUrls } = ctx;
    c.header("Vary", "Accept");
    const { account, status } = await lookup(c, c.req.param("handle").slice(1), c.req.param("id"));
    const ap = prefersActivityPub(c.req.header("Accept"));
    if (status?.deletedAt) {
      return ap
        ? await tombstone(c, account!.username, status.uri, status.deletedAt)
        : await sendMessagePage(c, 410, "Gone", "This post has been deleted.");
    }
    // A hidden status answers exactly as a missing one, whichever side says so.
    const notFound = () => c.json({ error: "Record not found" }, 404);
    if (ap) {
      if (!status || !account) return notFound();
      // The Note exactly as at its id, from the object dispatcher, with this
      // request as it came: its signature covers this URL, not the id's.
      const fedCtx = ctx.federation.createContext(c.req.raw, ctx);
      const values = { identifier: account.username, id: status.id };
      const note = await fedCtx.getObject(Note, values);
      if (!note) return notFound();
      if (!await authorizeFetch(fedCtx, account.username)) return unauthorizedFetch();
      return c.body(JSON.stringify(await note.toJsonLd(fedCtx)), 200, {
        "Content-Type": "application/activity+json",
        Vary: "Accept",
      });
    }
    if (
      !account || !status || account.deletedAt || !await canSeeStatus(ctx.database.db, null, status)
    ) {
      return await sendMessagePage(c, 404, "Not found", "There is no such post here.");
    }
    // The thread as an anonymous reader may see it (the API's context, same limits).
    const limits = CONTEXT_LIMITS.anonymous;
    const [up, down] = await Promise.all([
      ancestors(ctx.database, status, null, limits.ancestors),
      descendants(ctx.database, status, null, limits.descendants, limits.depth),
    ]);
    const all = await serializeStatuses(ctx, [status, ...up, ...down], null, undefined, {
      context: "thread",
    });
    const [json] = all;
    if (!json || json.id !== status.id) {
      return await sendMessagePage(c, 404, "Not found", "There is no such post here.");
    }
    const above = new Set(up.map((s) => s.id));
    const [author] = await loadAccountEntities(ctx.database.db, mediaUrls, [account.id]);
    c.header("Link", `<${status.uri}>; rel="alternate"; type="application/activity+json"`);
    return await sendPublicPage(
      c,
      ThreadPage({
        status: json,
        ancestors: all.slice(1).filter((s) => above.has(s.id)),
        descendants: all.slice(1).filter((s) => !above.has(s.id)),
        instanceTitle: config.instance.title,
        oembedUrl: `${config.origin}/api/oembed?url=${
          encodeURIComponent(localUris(config.origin).statusPage(account.username, status.id))
        }`,
        noindex: author?.noindex === true,
        viewer: await publicViewer(c),
      }),
    );
  });

  // A post's edit history for visitors (a session gets the app's, mounted first).
  app.get("/statuses/:id{[0-9]{1,19}}/history", async (c) => {
    const ctx = c.get("ctx");
    const read = await readStatus(ctx, null, c.req.param("id"));
    if (!read || read.row.reblogOfId) {
      return await sendMessagePage(c, 404, "Not found", "There is no such post here.");
    }
    const versions = await loadStatusHistory(ctx, read.row);
    return await sendPublicPage(
      c,
      HistoryPage({
        status: read.status,
        versions,
        instanceTitle: ctx.config.instance.title,
        viewer: await publicViewer(c),
      }),
    );
  });

  app.get("/users/:username/statuses/:id{[0-9]{1,19}}", async (c) => {
    const { config, database } = c.get("ctx");
    c.header("Vary", "Accept");
    const { account, status } = await lookup(c, c.req.param("username"), c.req.param("id"));
    if (status?.deletedAt) {
      return await tombstone(c, account!.username, status.uri, status.deletedAt);
    }
    // Unsigned, a hidden or missing status is refused as a public one is:
    // a 404 here would tell which ids are public.
    const ap = prefersActivityPub(c.req.header("Accept"));
    if (ap && !await mayFetch(c, c.req.param("username"))) return unauthorizedFetch();
    // Redirecting only to pages anyone may see keeps a hidden status a 404.
    if (
      !account || !status || ap ||
      !await canSeeStatus(database.db, null, status)
    ) {
      return c.json({ error: "Record not found" }, 404);
    }
    return c.redirect(localUris(config.origin).statusPage(account.username, status.id), 302);
  });

  return app;
}
