/**
 * The featured (pinned posts) and featured tags collections. (The outbox is
 * in outbox_collection.ts.)
 *
 * The featured collection lists pinned public and unlisted posts as Notes,
 * newest pin first; the featured tags collection lists featured_tags as
 * Hashtags. The instance actor has neither.
 */
import type { Federation, RequestContext } from "@fedify/fedify";
import { PUBLIC_VISIBILITIES } from "../../model/visibility.ts";
import { Hashtag } from "@fedify/vocab";
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { featuredTagsOf } from "../../db/queries/accounts.ts";
import { statuses, statusPins } from "../../db/schema/mod.ts";
import { buildNotes } from "../objects/note_batch.ts";
import type { AppContext } from "../../context.ts";
import { authorizeFetch } from "./authorized_fetch.ts";
import { findLocalAccountByIdentifier } from "./local_actors.ts";
import { LOCAL_PATHS, localUris } from "../../model/uris.ts";

/** Registers the featured and featured tags dispatchers. */
export function registerProfileCollections(federation: Federation<AppContext>): void {
  federation.setFeaturedDispatcher(
    LOCAL_PATHS.featured,
    async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      if (!account) return null;
      const pinned = await pinnedStatuses(ctx, account.id);
      const notes = await buildNotes(ctx, pinned);
      return { items: pinned.flatMap((s) => notes.get(s.id) ?? []) };
    },
  ).setCounter(async (ctx, identifier) => {
    const account = await liveAccount(ctx, identifier);
    return account ? (await pinnedStatuses(ctx, account.id)).length : null;
  }).authorize(authorizeFetch);

  federation.setFeaturedTagsDispatcher(
    LOCAL_PATHS.featuredTags,
    async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      if (!account) return null;
      // As Mastodon's HashtagSerializer for a FeaturedTag: the profile's tagged page.
      const rows = await featuredTagsOf(ctx.data.database, account.id);
      const items = rows.map((r) =>
        new Hashtag({
          href: new URL(localUris(ctx.origin).taggedPage(account.username, r.name)),
          name: `#${r.name}`,
        })
      );
      return { items };
    },
  ).setCounter(async (ctx, identifier) => {
    const account = await liveAccount(ctx, identifier);
    return account ? (await featuredTagsOf(ctx.data.database, account.id)).length : null;
  }).authorize(authorizeFetch);
}

/** Pins that anyone may see (public and unlisted), newest pin first; at most a handful. */
async function pinnedStatuses(ctx: RequestContext<AppContext>, accountId: string) {
  const rows = await ctx.data.database.db.select({ status: statuses }).from(statusPins)
    .innerJoin(statuses, eq(statuses.id, statusPins.statusId))
    .where(and(
      eq(statusPins.accountId, accountId),
      isNull(statuses.deletedAt),
      inArray(statuses.visibility, [...PUBLIC_VISIBILITIES]),
      eq(statuses.pendingApproval, false),
    ))
    .orderBy(desc(statusPins.id));
  return rows.map((r) => r.status);
}

async function liveAccount(ctx: RequestContext<AppContext>, identifier: string) {
  const account = await findLocalAccountByIdentifier(ctx.data.database.db, identifier);
  // Suspended accounts show nothing (404) until unsuspended; deleted ones nothing at all.
  return account && !account.deletedAt && !account.suspendedAt ? account : null;
}
