/**
 * The authorizations we issue when one of our authors approves a
 * favourite, reply or boost (issue 34, GoToSocial's interaction controls):
 * `/users/{identifier}/authorizations/{request id}` serves a
 * LikeAuthorization, ReplyAuthorization or AnnounceAuthorization naming the
 * approving author (`attributedTo`), the interaction (`interactingObject`)
 * and the status (`interactionTarget`), so the interacter's server and any
 * third server can check an `approvedBy` (or typed `replyAuthorization`…)
 * claim. A request not accepted, or whose interaction or status is gone,
 * has none (404): that is how a withdrawn approval reads.
 */
import type { Federation } from "@fedify/fedify";
import { AnnounceAuthorization, LikeAuthorization, ReplyAuthorization } from "@fedify/vocab";
import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts, favourites, interactionRequests, statuses } from "../../db/schema/mod.ts";
import { authorizeFetch } from "../dispatchers/authorized_fetch.ts";
import { activityIds, LOCAL_PATHS } from "../../model/uris.ts";

type RequestRow = typeof interactionRequests.$inferSelect;

/** Whether the approved interaction still exists (a withdrawn one is approved no more). */
async function interactionStands(db: Executor, row: RequestRow): Promise<boolean> {
  if (row.type === "favourite") {
    if (!row.favouriteId) return false;
    const [like] = await db.select({ id: favourites.id }).from(favourites)
      .where(eq(favourites.id, row.favouriteId));
    return like != null;
  }
  if (!row.statusId) return false;
  const [status] = await db.select({ id: statuses.id }).from(statuses)
    .where(and(eq(statuses.id, row.statusId), isNull(statuses.deletedAt)));
  return status != null;
}

/** Registers the authorization dispatcher (one for the three types: Fedify serves any of them). */
export function registerInteractionAuthorizationDispatcher(
  federation: Federation<AppContext>,
): void {
  federation.setObjectDispatcher(
    ReplyAuthorization,
    LOCAL_PATHS.authorization,
    async (ctx, v) => {
      if (!/^[0-9]{1,19}$/.test(v.id)) return null;
      const db = ctx.data.database.db;
      const [row] = await db.select({
        request: interactionRequests,
        author: accounts,
        target: statuses,
      })
        .from(interactionRequests)
        .innerJoin(statuses, eq(statuses.id, interactionRequests.targetStatusId))
        .innerJoin(accounts, eq(accounts.id, interactionRequests.targetAccountId))
        .where(and(eq(interactionRequests.id, v.id), eq(interactionRequests.state, "accepted")));
      if (!row || row.author.domain != null || row.author.username !== v.identifier) return null;
      if (row.target.deletedAt || !await interactionStands(db, row.request)) return null;
      const values = {
        id: new URL(activityIds.authorization(row.author.uri, row.request.id)),
        attribution: new URL(row.author.uri),
        interactingObject: new URL(row.request.interactionUri),
        interactionTarget: new URL(row.target.uri),
      };
      // Fedify's typing asks for the registered class; the other two are served alike.
      if (row.request.type === "favourite") {
        return new LikeAuthorization(values) as unknown as ReplyAuthorization;
      }
      if (row.request.type === "reblog") {
        return new AnnounceAuthorization(values) as unknown as ReplyAuthorization;
      }
      return new ReplyAuthorization(values);
    },
  ).authorize((ctx, values) => authorizeFetch(ctx, values.identifier));
}
