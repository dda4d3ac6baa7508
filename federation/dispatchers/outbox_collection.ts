/**
 * The outbox collection of local actors (`/users/{identifier}/outbox`), as
 * Mastodon's OutboxController serves it to an anonymous reader: the
 * account's public and unlisted statuses, newest first, posts as Create of
 * their Note (the document deliveries send, federation/objects/note.ts) and
 * boosts as Announce (federation/outbox/interactions.ts), 20 per page.
 *
 * What a page may hold is decided by the one visibility module with an
 * anonymous viewer: no private or direct status, nothing deleted, no boost
 * of a status an anonymous reader could not see. `totalItems` is the
 * account's statuses_count, as Mastodon reports it. The instance actor has
 * an outbox that stays empty.
 */
import type { Context, Federation, RequestContext } from "@fedify/fedify";
import type { Activity } from "@fedify/vocab";
import { and, desc, eq, lt } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { visibleStatusFilter } from "../../db/queries/visibility.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { authorizeFetch } from "./authorized_fetch.ts";
import { INSTANCE_ACTOR } from "./instance_actor.ts";
import { findLocalAccountByIdentifier } from "./local_actors.ts";
import { buildNotes } from "../objects/note_batch.ts";
import { carryTerms, WireCreate } from "../objects/mastodon_terms.ts";
import { announceOf } from "../outbox/interactions.ts";
import { cutPage, FIRST_PAGE, parseCursor } from "./pagination.ts";
import { activityIds, LOCAL_PATHS } from "../../model/uris.ts";

/** Activities per outbox page (Mastodon's OutboxController::LIMIT). */
export const OUTBOX_PAGE_SIZE = 20;

type AccountRow = typeof accounts.$inferSelect;
type StatusRow = typeof statuses.$inferSelect;

/** Registers the outbox dispatcher, its counter and its first cursor. */
export function registerOutboxCollection(federation: Federation<AppContext>): void {
  federation
    .setOutboxDispatcher(LOCAL_PATHS.outbox, async (ctx, identifier, cursor) => {
      const parsed = cursor == null ? { before: null } : parseCursor(cursor);
      if (!parsed) return null;
      if (identifier === INSTANCE_ACTOR) return { items: [], nextCursor: null };
      const account = await liveAccount(ctx, identifier);
      if (!account) return null;
      const page = cutPage(
        await publicStatuses(ctx.data.database.db, account.id, parsed.before),
        OUTBOX_PAGE_SIZE,
      );
      return {
        items: await activitiesOf(ctx, account, page.rows),
        nextCursor: page.nextCursor,
      };
    })
    .setCounter(async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR) return 0;
      const account = await liveAccount(ctx, identifier);
      return account ? account.statusesCount : null;
    })
    .setFirstCursor(async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR) return FIRST_PAGE;
      return await liveAccount(ctx, identifier) ? FIRST_PAGE : null;
    })
    .authorize(authorizeFetch);
}

async function liveAccount(ctx: RequestContext<AppContext>, identifier: string) {
  const account = await findLocalAccountByIdentifier(ctx.data.database.db, identifier);
  // Suspended accounts show nothing (404) until unsuspended; deleted ones nothing at all.
  return account && !account.deletedAt && !account.suspendedAt ? account : null;
}

/** One page (plus one row) of what an anonymous reader may see of the account, newest first. */
async function publicStatuses(
  db: Executor,
  accountId: string,
  before: string | null,
): Promise<StatusRow[]> {
  return await db.select().from(statuses)
    .where(and(
      eq(statuses.accountId, accountId),
      before == null ? undefined : lt(statuses.id, before),
      visibleStatusFilter(null),
    ))
    .orderBy(desc(statuses.id))
    .limit(OUTBOX_PAGE_SIZE + 1);
}

/**
 * Create(Note) for posts, Announce for boosts, in the order of `rows`: the
 * documents deliveries send. The archive export (archive_job.ts) writes the
 * same ones.
 */
export async function activitiesOf(
  ctx: Context<AppContext>,
  account: AccountRow,
  rows: StatusRow[],
): Promise<Activity[]> {
  const originals = rows.filter((s) => s.reblogOfId == null);
  const boosts = rows.filter((s) => s.reblogOfId != null);
  const [notes, boosted] = await Promise.all([
    buildNotes(ctx, originals),
    boostedStatuses(ctx.data.database.db, boosts.map((b) => b.reblogOfId!)),
  ]);
  const items: Activity[] = [];
  for (const status of rows) {
    if (status.reblogOfId == null) {
      const note = notes.get(status.id);
      if (!note) continue;
      // Wire*: the Note's Mastodon terms (objects/mastodon_terms.ts), as deliveries carry them.
      items.push(carryTerms(
        new WireCreate({
          id: new URL(activityIds.activity(status.uri)),
          actor: new URL(account.uri),
          object: note,
          tos: note.toIds,
          ccs: note.ccIds,
          published: Temporal.Instant.fromEpochMilliseconds(status.createdAt.getTime()),
        }),
        note,
      ));
      continue;
    }
    const original = boosted.get(status.reblogOfId);
    if (!original) continue;
    items.push(announceOf(
      ctx,
      {
        id: status.id,
        uri: status.uri,
        accountId: account.id,
        reblogOfId: original.status.id,
        visibility: status.visibility,
        createdAt: status.createdAt.toISOString(),
      },
      account,
      original.status,
      original.author,
    ));
  }
  return items;
}

/** The boosted statuses with their authors, by id, in one query. */
async function boostedStatuses(
  db: Executor,
  ids: string[],
): Promise<Map<string, { status: StatusRow; author: AccountRow }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ status: statuses, author: accounts }).from(statuses)
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(anyId(statuses.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.status.id, r]));
}
