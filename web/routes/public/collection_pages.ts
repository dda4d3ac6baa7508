/**
 * GET /@:username/collections/:id: the web page of one of our collections
 * (Mastodon 4.7). The same rules as the API's read: unknown, remote, of a
 * suspended or deleted owner, or under another username → 404 page; a
 * browser whose account the owner blocks gets the same 404 page (the API's
 * 403 would tell it the collection exists). PUBLIC_PREVIEW=false does not
 * close it: profiles stay public too. Only accepted members are listed.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { serializeCollectionWithAccounts } from "../../../api/entities/collection.ts";
import { findCollection } from "../../../db/queries/collections.ts";
import { isBlocking } from "../../../db/queries/accounts.ts";
import { collectionUri } from "../../../model/collection_uris.ts";
import { currentSession } from "../auth/authorize_request.ts";
import { CollectionPage } from "../../pages/public/collection.tsx";
import { publicViewer, sendMessagePage, sendPublicPage } from "./public_page_kit.ts";

export function collectionPageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/:handle{@[^/]+}/collections/:id{[0-9]{1,19}}", async (c) => {
    const ctx = c.get("ctx");
    const { config, database } = ctx;
    const notFound = () =>
      sendMessagePage(c, 404, "Not found", "There is no such collection here.");
    const username = c.req.param("handle").slice(1).toLowerCase();
    const row = await findCollection(database.db, c.req.param("id"));
    if (
      !row || !row.local || row.ownerUnavailable || row.ownerDomain != null ||
      row.ownerUsername.toLowerCase() !== username
    ) return await notFound();
    const viewerId = (await currentSession(c))?.user.accountId ?? null;
    if (
      viewerId && viewerId !== row.accountId && await isBlocking(database, row.accountId, viewerId)
    ) {
      return await notFound();
    }
    const { accounts, collection } = await serializeCollectionWithAccounts(
      database.db,
      ctx.mediaUrls,
      row,
      viewerId,
    );
    const byId = new Map(accounts.map((a) => [a.id, a]));
    const members = collection.items
      .filter((i) => i.state === "accepted" && i.account_id)
      .flatMap((i) => byId.get(i.account_id!) ?? []);
    return await sendPublicPage(
      c,
      CollectionPage({
        collection,
        owner: byId.get(row.accountId)!,
        members,
        activityPub: collectionUri(config.origin, row.ownerUsername, row.id),
        instanceTitle: config.instance.title,
        viewer: await publicViewer(c),
      }),
    );
  });

  return app;
}
