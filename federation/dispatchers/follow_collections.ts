/**
 * The followers and following collections of local actors, read from the
 * `follows` table (account_id follows target_account_id), newest first.
 *
 * With `hide_collections` the world sees only `totalItems`. Delivery still
 * needs every follower: Fedify asks the followers dispatcher for all of them
 * (cursor null) when an activity goes to "followers", so hiding applies only
 * while answering a GET for the collection itself. That enumeration names
 * remote followers only (local ones are not delivered to over HTTP).
 */
import type { Context, Federation, RequestContext } from "@fedify/fedify";
import { and, count, desc, eq, isNotNull, lt } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts, follows } from "../../db/schema/mod.ts";
import { authorizeFetch } from "./authorized_fetch.ts";
import { findLocalAccountByIdentifier } from "./local_actors.ts";
import { cutPage, FIRST_PAGE, PAGE_SIZE, parseCursor } from "./pagination.ts";
import { LOCAL_PATHS, localUris } from "../../model/uris.ts";
import { recipientOf as toRecipient } from "../objects/recipient.ts";

/** Registers `/users/{identifier}/followers` and `/users/{identifier}/following`. */
export function registerFollowCollections(federation: Federation<AppContext>): void {
  federation
    .setFollowersDispatcher(LOCAL_PATHS.followers, async (ctx, identifier, cursor) => {
      const account = await liveAccount(ctx, identifier);
      if (!account) return null;
      // A suspended account shows no collections, but its Update still reaches its followers.
      if (account.suspendedAt && isServingCollection(ctx, "followers", identifier)) return null;
      const db = ctx.data.database.db;
      if (cursor == null) {
        if (isServingCollection(ctx, "followers", identifier) && account.hideCollections) {
          return { items: [] };
        }
        // One shot for delivery: every remote follower with its inboxes. Local
        // followers are never POSTed to over HTTP: they have what we sent
        // them already (fan-out), and our own inbox would take it as remote.
        const rows = await followerRows(db, account.id, null, null, { remoteOnly: true });
        return { items: rows.map(toRecipient) };
      }
      if (account.hideCollections) return { items: [] };
      const parsed = parseCursor(cursor);
      if (!parsed) return null;
      const page = cutPage(await followerRows(db, account.id, parsed.before, PAGE_SIZE + 1));
      return { items: page.rows.map(toRecipient), nextCursor: page.nextCursor };
    })
    .setCounter(async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      return account ? await countFollows(ctx.data.database.db, "followers", account.id) : null;
    })
    .setFirstCursor(async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      // Null makes Fedify call the dispatcher without a cursor: 404 or totalItems only.
      return account && !account.hideCollections ? FIRST_PAGE : null;
    })
    .authorize(authorizeFetch);

  federation
    .setFollowingDispatcher(LOCAL_PATHS.following, async (ctx, identifier, cursor) => {
      const account = await liveAccount(ctx, identifier);
      if (!account || account.suspendedAt) return null;
      if (account.hideCollections) return { items: [] };
      const parsed = cursor == null ? { before: null } : parseCursor(cursor);
      if (!parsed) return null;
      const page = cutPage(
        await followingRows(ctx.data.database.db, account.id, parsed.before, PAGE_SIZE + 1),
      );
      return { items: page.rows.map((row) => new URL(row.uri)), nextCursor: page.nextCursor };
    })
    .setCounter(async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      return account ? await countFollows(ctx.data.database.db, "following", account.id) : null;
    })
    .setFirstCursor(async (ctx, identifier) => {
      const account = await liveAccount(ctx, identifier);
      return account && !account.hideCollections ? FIRST_PAGE : null;
    })
    .authorize(authorizeFetch);
}

/** A local account that is not deleted (a deleted one has no collections). */
async function liveAccount(ctx: Context<AppContext>, identifier: string) {
  const account = await findLocalAccountByIdentifier(ctx.data.database.db, identifier);
  return account && !account.deletedAt ? account : null;
}

/** Whether this context answers a GET of the collection (not an internal enumeration). */
function isServingCollection(
  ctx: Context<AppContext>,
  name: "followers" | "following",
  identifier: string,
): boolean {
  if (!("request" in ctx)) return false;
  return (ctx as RequestContext<AppContext>).url.pathname === localUris("")[name](identifier);
}

async function followerRows(
  db: Executor,
  accountId: string,
  before: string | null,
  limit: number | null,
  options: { remoteOnly?: boolean } = {},
) {
  const query = db.select({
    id: follows.id,
    uri: accounts.uri,
    inboxUrl: accounts.inboxUrl,
    sharedInboxUrl: accounts.sharedInboxUrl,
  }).from(follows)
    .innerJoin(accounts, eq(accounts.id, follows.accountId))
    .where(and(
      eq(follows.targetAccountId, accountId),
      before == null ? undefined : lt(follows.id, before),
      options.remoteOnly ? isNotNull(accounts.domain) : undefined,
    ))
    .orderBy(desc(follows.id));
  return limit == null ? await query : await query.limit(limit);
}

async function followingRows(
  db: Executor,
  accountId: string,
  before: string | null,
  limit: number,
) {
  return await db.select({ id: follows.id, uri: accounts.uri }).from(follows)
    .innerJoin(accounts, eq(accounts.id, follows.targetAccountId))
    .where(and(
      eq(follows.accountId, accountId),
      before == null ? undefined : lt(follows.id, before),
    ))
    .orderBy(desc(follows.id))
    .limit(limit);
}

async function countFollows(
  db: Executor,
  which: "followers" | "following",
  accountId: string,
): Promise<number> {
  const column = which === "followers" ? follows.targetAccountId : follows.accountId;
  const [row] = await db.select({ n: count() }).from(follows).where(eq(column, accountId));
  return Number(row?.n ?? 0);
}
