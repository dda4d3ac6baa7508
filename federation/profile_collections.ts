/**
 * The outbox, featured (pinned posts) and featured tags collections.
 *
 * Statuses and pins arrive in later issues: until then the outbox reports
 * the account's statuses_count with empty pages, and the featured collection
 * is empty. The featured tags collection lists featured_tags as Hashtags. The instance actor has an outbox (empty)
 * and nothing else.
 */
import type { Federation, RequestContext } from "@fedify/fedify";
import { Hashtag } from "@fedify/vocab";
import { featuredTagsOf } from "../db/queries/accounts.ts";
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
      // Pinned statuses come with the posting issue.
      return await liveAccount(ctx, identifier) ? { items: [] } : null;
    },
  ).setCounter(async (ctx, identifier) => await liveAccount(ctx, identifier) ? 0 : null);

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

async function liveAccount(ctx: RequestContext<AppContext>, identifier: string) {
  const account = await findLocalAccountByIdentifier(ctx.data.database.db, identifier);
  return account && !account.deletedAt ? account : null;
}
