/**
 * The `replies` property of a local status's Note: its replies collection
 * (served by federation/dispatchers/replies_collection.ts) with the first page
 * embedded, as Mastodon's NoteSerializer writes it.
 */
import { Collection, CollectionPage } from "@fedify/vocab";
import type { ListedReply } from "../../db/queries/replies.ts";

/** Replies embedded in a Note's first page (Mastodon embeds 5). */
export const EMBEDDED_REPLIES = 5;
/** Replies per page of the collection itself. */
export const REPLIES_PAGE_SIZE = 40;

/** The IRI of a local status's replies collection. */
export function repliesUri(statusUri: string): string {
  return `${statusUri}/replies`;
}

/** A page's link: the collection with the cursor after `lastId`. */
function pageUri(statusUri: string, lastId: string): URL {
  const url = new URL(repliesUri(statusUri));
  url.searchParams.set("cursor", lastId);
  return url;
}

/**
 * The Note's `replies`: the collection with its first page embedded.
 * `first` holds up to {@link EMBEDDED_REPLIES} + 1 replies (read with one
 * more to tell whether a next page exists).
 */
export function repliesProperty(statusUri: string, first: readonly ListedReply[]): Collection {
  const shown = first.slice(0, EMBEDDED_REPLIES);
  const more = first.length > EMBEDDED_REPLIES;
  const id = new URL(repliesUri(statusUri));
  return new Collection({
    id,
    first: new CollectionPage({
      partOf: id,
      items: shown.map((r) => new URL(r.uri)),
      next: more ? pageUri(statusUri, shown[shown.length - 1].id) : null,
    }),
  });
}
