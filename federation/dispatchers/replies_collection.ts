/**
 * The `replies` collection of a local status, which other servers crawl to
 * complete a thread (Mastodon 4.5's FetchAllRepliesWorker; we crawl theirs
 * in replies_crawl.ts). It lists the replies anyone may see (public and
 * unlisted, db/queries/replies.ts), local and remote, as their IRIs, oldest
 * first. The Note carries the collection with its first page embedded
 * (objects/replies.ts), as Mastodon's NoteSerializer does, so a crawler
 * needs no request for a thread with few replies; later pages are served at
 * `…/statuses/{id}/replies?cursor=<id of the last reply seen>`.
 *
 * Who may read it: whoever may read the status (the Note dispatcher's rule),
 * and authorized fetch as for every collection.
 */
import type { Federation, RequestContext } from "@fedify/fedify";
import { Note } from "@fedify/vocab";
import type { AppContext } from "../../context.ts";
import { canSeeStatus } from "../../db/queries/visibility.ts";
import { countReplies, repliesAfter } from "../../db/queries/replies.ts";
import { REPLIES_PAGE_SIZE } from "../objects/replies.ts";
import { authorizeFetch } from "./authorized_fetch.ts";
import { fetcherAccountId, findLocalStatus } from "../objects/note.ts";
import { FIRST_PAGE, parseCursor } from "./pagination.ts";
import { LOCAL_PATHS } from "../../model/uris.ts";

/** The local status of the path, when the requester may see it (else the collection is a 404). */
async function visibleParent(ctx: RequestContext<AppContext>, values: Record<string, string>) {
  const db = ctx.data.database.db;
  const status = await findLocalStatus(db, values.identifier, values.id);
  if (!status || status.deletedAt) return null;
  return await canSeeStatus(db, await fetcherAccountId(ctx), status) ? status : null;
}

/** Registers the dispatcher of `/users/{identifier}/statuses/{id}/replies`. */
export function registerRepliesCollection(federation: Federation<AppContext>): void {
  federation.setCollectionDispatcher(
    "replies",
    Note,
    LOCAL_PATHS.replies,
    async (ctx, values, cursor) => {
      // Without a cursor only a status that may not be seen gets here (no first cursor): 404.
      const status = cursor == null ? null : await visibleParent(ctx, values);
      if (!status || cursor == null) return null;
      // Our cursors' syntax ("first", or an id); here a page holds the replies after the id.
      const parsed = parseCursor(cursor);
      if (!parsed) return null;
      const db = ctx.data.database.db;
      const rows = await repliesAfter(db, status.id, parsed.before, REPLIES_PAGE_SIZE + 1);
      const shown = rows.slice(0, REPLIES_PAGE_SIZE);
      return {
        // The items are IRIs (Mastodon lists remote replies so, and crawlers
        // fetch each reply from its own server): Fedify's pages take URLs.
        items: shown.map((r) => new URL(r.uri)) as unknown as Note[],
        nextCursor: rows.length > REPLIES_PAGE_SIZE ? shown[shown.length - 1].id : null,
      };
    },
  ).setFirstCursor(async (ctx, values) => await visibleParent(ctx, values) ? FIRST_PAGE : null)
    .setCounter(async (ctx, values) => {
      const status = await visibleParent(ctx, values);
      return status ? await countReplies(ctx.data.database.db, status.id) : null;
    })
    .authorize((ctx, values) => authorizeFetch(ctx, values.identifier));
}
