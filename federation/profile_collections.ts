/**
 * The outbox, featured (pinned posts) and featured tags collections.
 *
 * The outbox reports the account's statuses_count (its pages are still
 * empty: peers backfill from it rarely, and Mastodon only reads its size).
 * The featured collection lists pinned public and unlisted posts as Notes,
 * newest pin first; the featured tags collection lists featured_tags as
 * Hashtags. The instance actor has an outbox (empty) and nothing else.
 */
import type { Federation, RequestContext } from "@fedify/fedify";
import { Hashtag } from "@fedify/vocab";
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { featuredTagsOf } from "../db/queries/accounts.ts";
import { statuses, statusPins } from "../db/schema.ts";
import { buildNote, loadNoteData } from "./objects/note.ts";
import { withNoteExtras } from "./objects/note_extras.ts";
import type { AppContext } from "../context.ts";
import { INSTANCE_ACTOR } from "./instance_actor.ts";
import { findLocalAccountByIdentifier } from "./local_actors.ts";
import { FIRST_PAGE, parseCursor } from "./pagination.ts";

/** Registers the outbox, featured and featured tags dispatchers. */
export function registerProfileCollections(federation: Federation<AppContext>): void {
  federation
    .setOutboxDispatcher("/users/{identifier}/outbox", async (ctx, identifier, cursor) => {
      if (identifier !== INSTANCE_ACTOR && !await liveAccount(ctx, identifier)) return null;
      if (cursor != null && !parseCursor(cursor)) return null;
      // Statuses come with the posting issue; until then every page is empty.
      return { items: [], nextCursor: null };
    })
    .setCounter(async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR) return 0;
      const account = await liveAccount(ctx, identifier);
      return account ? account.statusesCount : null;
    })
    .setFirstCursor(async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR) return FIRST_PAGE;
      return await liveAccount(ctx, identifier) ? FIRST_PAGE : null;
    });

  federation.setFeaturedDispatcher(
    "/users/{identifier}/collections/featured",
    async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      if (!account) return null;
      const items = [];
      for (const status of await pinnedStatuses(ctx, account.id)) {
        const data = await loadNoteData(ctx.data.database.db, ctx.data.config.origin, status);
        if (data) items.push(await withNoteExtras(ctx, status, buildNote(ctx, status, data)));
      }
      return { items };
    },
  ).setCounter(async (ctx, identifier) => {
    const account = await liveAccount(ctx, identifier);
    return account ? (await pinnedStatuses(ctx, account.id)).length : null;
  });

  federation.setFeaturedTagsDispatcher(
    "/users/{identifier}/collections/tags",
    async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      if (!account) return null;
      // As Mastodon's HashtagSerializer for a FeaturedTag: the profile's tagged page.
      const rows = await featuredTagsOf(ctx.data.database, account.id);
      const items = rows.map((r) =>
        new Hashtag({
          href: new URL(`/@${account.username}/tagged/${encodeURIComponent(r.name)}`, ctx.origin),
          name: `#${r.name}`,
        })
      );
      return { items };
    },
  ).setCounter(async (ctx, identifier) => {
    const account = await liveAccount(ctx, identifier);
    return account ? (await featuredTagsOf(ctx.data.database, account.id)).length : null;
  });
}

/** Pins that anyone may see (public and unlisted), newest pin first; at most a handful. */
async function pinnedStatuses(ctx: RequestContext<AppContext>, accountId: string) {
  const rows = await ctx.data.database.db.select({ status: statuses }).from(statusPins)
    .innerJoin(statuses, eq(statuses.id, statusPins.statusId))
    .where(and(
      eq(statusPins.accountId, accountId),
      isNull(statuses.deletedAt),
      inArray(statuses.visibility, ["public", "unlisted"]),
    ))
    .orderBy(desc(statusPins.id));
  return rows.map((r) => r.status);
}

async function liveAccount(ctx: RequestContext<AppContext>, identifier: string) {
  const account = await findLocalAccountByIdentifier(ctx.data.database.db, identifier);
  return account && !account.deletedAt ? account : null;
}
