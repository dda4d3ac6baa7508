/**
 * A status's `tagged_collections` (Mastodon 4.6): the collections whose page
 * its HTML links to, exactly. The status commands (posting, editing, and
 * their remote counterparts) call {@link linkTaggedCollections} inside their
 * transaction, so the links (table `status_collections`) are written with
 * the status; the Status serializer reads them with the status's content.
 *
 * A page is a local collection's (`/@user/collections/:id` on this server,
 * model/collection_uris.ts) or a stored remote collection's `url`. Links are
 * looked up only when the HTML mentions `/collections/` at all, so the
 * common post costs no parse and no query; at most {@link MAX_TAGGED_LINKS}
 * links are looked at.
 */
import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { Parser } from "htmlparser2";
import type { Executor } from "../../db/connection.ts";
import { accounts, collections, statusCollections } from "../../db/schema/mod.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { collectionUrl } from "../../model/collection_uris.ts";

/** How many distinct links of one status are matched against collections. */
export const MAX_TAGGED_LINKS = 20;

/** The path of a local collection's page: `/@user/collections/:id`. */
const LOCAL_PAGE = /^\/@([^/@]+)\/collections\/([0-9]+)$/;

/** The distinct http(s) hrefs of a status's HTML (normalized), at most {@link MAX_TAGGED_LINKS}. */
function linkedPages(html: string): string[] {
  const found = new Set<string>();
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name !== "a" || attribs.href == null || found.size >= MAX_TAGGED_LINKS) return;
      if (!URL.canParse(attribs.href.trim())) return;
      const url = new URL(attribs.href.trim());
      if (url.protocol === "http:" || url.protocol === "https:") found.add(url.href);
    },
  });
  parser.end(html);
  return [...found];
}

/** The ids of the collections these pages are: local ones by their derived page, remote by `url`. */
async function collectionsAt(
  tx: Executor,
  origin: string,
  pages: readonly string[],
): Promise<string[]> {
  const localIds: string[] = [];
  const remoteUrls: string[] = [];
  for (const page of pages) {
    const url = new URL(page);
    const local = url.origin === origin ? LOCAL_PAGE.exec(url.pathname) : null;
    if (local) localIds.push(local[2]);
    else if (url.origin !== origin) remoteUrls.push(page);
  }
  if (localIds.length === 0 && remoteUrls.length === 0) return [];
  const rows = await tx.select({
    id: collections.id,
    local: collections.local,
    owner: accounts.username,
  }).from(collections)
    .innerJoin(accounts, eq(accounts.id, collections.accountId))
    .where(or(
      localIds.length
        ? and(anyId(collections.id, localIds), eq(collections.local, true), isNull(accounts.domain))
        : sql`false`,
      remoteUrls.length
        ? and(inArray(collections.url, remoteUrls), eq(collections.local, false))
        : sql`false`,
    ));
  // A local page names its owner too: the link must be the collection's own page.
  const linked = new Set(pages);
  return rows
    .filter((r) => !r.local || linked.has(new URL(collectionUrl(origin, r.owner, r.id)).href))
    .map((r) => r.id);
}

/**
 * In the status's transaction: records the collections its HTML links to;
 * after an edit, replaces what the previous text linked.
 */
export async function linkTaggedCollections(
  tx: Executor,
  origin: string,
  status: { id: string; content: string; reblogOfId?: string | null },
  options: { edited?: boolean } = {},
): Promise<void> {
  if (options.edited) {
    await tx.delete(statusCollections).where(eq(statusCollections.statusId, status.id));
  }
  if (status.reblogOfId != null || !status.content.includes("/collections/")) return;
  const ids = await collectionsAt(tx, new URL(origin).origin, linkedPages(status.content));
  if (ids.length === 0) return;
  await tx.insert(statusCollections)
    .values(ids.map((collectionId) => ({ statusId: status.id, collectionId })))
    .onConflictDoNothing();
}
