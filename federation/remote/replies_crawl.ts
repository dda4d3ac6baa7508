/**
 * Completing remote threads (Mastodon 4.5's ContextsController and
 * ActivityPub::FetchAllRepliesWorker): a user opens a remote status, the
 * context answer is given at once with what we have, and a job crawls the
 * status's `replies` collection, and its replies' collections in turn, to
 * store the replies that never reached us.
 *
 * ```
 * GET context ─► requestRepliesRefresh: refresh running? announce it.
 *   else remote, public/unlisted, old enough, not crawled within the cooldown
 *   ─► claimRefresh (one statement: one crawl however many processes ask)
 *   ─► job replies_crawl ─► Mastodon-Async-Refresh: id="…", retry=3, result_count=0
 * job ─► crawlReplies: breadth first from the status, each collection's pages
 *   ─► each reply IRI: stored? descend. Else fetch it (lookupRemote, signed as
 *      the instance actor), keep it only when it is a public or unlisted reply
 *      to the status whose collection listed it, store it (storeRemoteStatus:
 *      the same trust, visibility and dialect rules as a delivery), descend
 *   ─► finishRefresh with the count of new statuses
 * ```
 *
 * Bounds: at most THREAD_CRAWL_MAX_REPLIES replies seen, MAX_PAGES
 * collection pages, MAX_CRAWL_DEPTH levels, and one FetchBudget (count and
 * CRAWL_DEADLINE_MS) for every request of the crawl. Every request goes
 * through the document loader (SSRF guard, deadline, size, domain blocks at
 * every hop); a collection is read only from its status's own server; a
 * status's collection is not crawled again within
 * THREAD_CRAWL_COOLDOWN (actors/statuses/reply_crawls.ts), nor before the
 * status is THREAD_CRAWL_MIN_AGE old (its replies are still
 * arriving by delivery).
 */
import type { Context } from "@fedify/fedify";
import { isPublicVisibility } from "../../model/visibility.ts";
import type { DocumentLoader } from "@fedify/vocab";
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { statuses } from "../../db/schema/mod.ts";
import {
  type AsyncRefresh,
  claimCrawl,
  claimRefresh,
  countRefresh,
  finishRefresh,
  runningRefresh,
} from "../../actors/statuses/reply_crawls.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { findStatusByUri, rawJson, storeRemoteStatus } from "./statuses.ts";
import { instanceContext, instanceDocumentLoader, lookupRemote } from "../fetch/lookup.ts";
import { isStatusObject, visibilityFromAudience } from "../objects/remote_status.ts";
import { sameOrigin, webUrl } from "../fetch/trust.ts";
import { recordJob } from "../../actors/outbox/jobs.ts";

const logger = getLogger(["rookery", "federation", "replies-crawl"]);

type StatusRow = typeof statuses.$inferSelect;
type Json = Record<string, unknown>;

/** Collection pages read at most by one crawl (Mastodon's MAX_PAGES). */
export const MAX_PAGES = 500;
/** Levels of replies below the status opened that are crawled. */
export const MAX_CRAWL_DEPTH = 20;
/** One crawl's requests end within this (the job holds a worker that long at most). */
export const CRAWL_DEADLINE_MS = 120_000;
/** Seconds a client should wait before asking again (Mastodon's retry). */
export const RETRY_SECONDS = 3;

/** The `Mastodon-Async-Refresh` header of a refresh. */
export function asyncRefreshHeader(refresh: AsyncRefresh): string {
  return `id="${refresh.id}", retry=${RETRY_SECONDS}, result_count=${refresh.resultCount}`;
}

/**
 * The refresh a context answer for `status` announces: the one running, or
 * a new one (its crawl queued) when `mayStart` (a signed-in user asks, as
 * Mastodon starts crawls only for them) and the status is due; else null.
 * Never throws: the thread is answered as it is when this fails.
 */
export async function requestRepliesRefresh(
  app: AppContext,
  status: StatusRow,
  mayStart: boolean,
): Promise<AsyncRefresh | null> {
  const settings = app.config.fetchReplies;
  if (
    status.local || status.deletedAt || status.reblogOfId || !isPublicVisibility(status.visibility)
  ) {
    return null;
  }
  if (settings.maxStatuses === 0) return null;
  try {
    const running = await runningRefresh(app.database.db, status.id);
    if (running || !mayStart) return running;
    if (Date.now() - status.createdAt.getTime() < settings.initialWaitMs) return null;
    const refresh = await claimRefresh(app.database, status.id, settings.cooldownMs);
    if (!refresh) return null;
    try {
      await recordJob(app.database.db, {
        job: "replies_crawl",
        statusId: status.id,
        refreshId: refresh.id,
      });
    } catch (error) {
      await finishRefresh(app.database.db, refresh.id, 0);
      throw error;
    }
    return refresh;
  } catch (error) {
    logger.warn("Could not start a crawl of the replies of {id}: {error}", {
      id: status.id,
      error,
    });
    return null;
  }
}

/** One status whose collection is to be read, and its document when already fetched. */
interface Pending {
  status: StatusRow;
  json: Json | null;
  depth: number;
}

/** The job: crawls the replies of `statusId` and ends the refresh `refreshId`. */
export async function crawlReplies(
  app: AppContext,
  statusId: string,
  refreshId: string,
): Promise<void> {
  let crawl: Crawl | null = null;
  try {
    const [root] = await app.database.db.select().from(statuses).where(eq(statuses.id, statusId));
    if (!root || root.local || root.deletedAt) return;
    crawl = new Crawl(app, instanceContext(app), refreshId);
    await crawl.run(root);
  } finally {
    // Also when the crawl failed half-way: what it stored is counted, and the refresh ends.
    await finishRefresh(app.database.db, refreshId, crawl?.stored ?? 0);
  }
}

class Crawl {
  readonly #app: AppContext;
  readonly #ctx: Context<AppContext>;
  readonly #refreshId: string;
  readonly #budget: FetchBudget;
  readonly #seen = new Set<string>();
  readonly #max: number;
  #loader: DocumentLoader | null = null;
  #pages = 0;
  stored = 0;

  constructor(app: AppContext, ctx: Context<AppContext>, refreshId: string) {
    this.#app = app;
    this.#ctx = ctx;
    this.#refreshId = refreshId;
    this.#max = app.config.fetchReplies.maxStatuses;
    // Each reply may cost its document and its author's, plus the pages.
    this.#budget = new FetchBudget(this.#max * 2 + MAX_PAGES, CRAWL_DEADLINE_MS);
  }

  async run(root: StatusRow): Promise<void> {
    const queue: Pending[] = [{ status: root, json: null, depth: 0 }];
    const cooldown = this.#app.config.fetchReplies.cooldownMs;
    while (queue.length > 0 && !this.#done()) {
      const { status, json, depth } = queue.shift()!;
      // The root was claimed with its refresh; the others are claimed as they come.
      if (depth > 0 && !await claimCrawl(this.#app.database, status.id, cooldown)) continue;
      const document = json ?? await this.#fetchJson(status.uri);
      if (!document) continue;
      for await (const uri of this.#replyIris(document.replies, status.uri)) {
        if (this.#seen.has(uri)) continue;
        this.#seen.add(uri);
        const reply = await this.#reply(uri, status);
        if (reply && depth + 1 < MAX_CRAWL_DEPTH) queue.push({ ...reply, depth: depth + 1 });
        if (this.#done()) break;
      }
    }
    logger.debug("Crawled the replies of {uri}: {stored} new, {seen} seen, {pages} pages.", {
      uri: root.uri,
      stored: this.stored,
      seen: this.#seen.size,
      pages: this.#pages,
    });
  }

  #done(): boolean {
    return this.#seen.size >= this.#max || this.#budget.signal.aborted;
  }

  /**
   * The stored reply behind `uri`, fetched and stored when new, if it is a
   * public or unlisted reply to `parent`; null otherwise (not a reply to it,
   * not listed, gone, refused, or over the budget).
   */
  async #reply(
    uri: string,
    parent: StatusRow,
  ): Promise<{ status: StatusRow; json: Json | null } | null> {
    const known = await findStatusByUri(this.#app, uri);
    if (known) {
      return known.inReplyToId === parent.id && isPublicVisibility(known.visibility)
        ? { status: known, json: null }
        : null;
    }
    if (sameOrigin(uri, this.#app.config.origin)) return null;
    const object = await lookupRemote(this.#ctx, uri, this.#budget);
    if (!isStatusObject(object) || !object.id) return null;
    // A collection lists only its status's replies, and we take only what anyone may see.
    if (object.replyTargetId?.href !== parent.uri) return null;
    if (!isPublicVisibility(visibilityFromAudience(object, null))) return null;
    const raw = await rawJson(object);
    const status = await storeRemoteStatus(this.#ctx, object, {
      depth: 0,
      raw,
      budget: this.#budget,
    });
    if (!status || status.inReplyToId !== parent.id) return null;
    this.stored++;
    await countRefresh(this.#app.database.db, this.#refreshId, this.stored);
    return { status, json: isJson(raw) ? raw : null };
  }

  /**
   * The reply IRIs a `replies` value lists: an embedded collection or its
   * IRI, then its `first` page and every `next` one, all from the server of
   * `statusUri` (a collection elsewhere is not read: a status speaks only
   * for its own server), within the page bound.
   */
  async *#replyIris(value: unknown, statusUri: string): AsyncGenerator<string> {
    const collection = await this.#resolve(value, statusUri);
    if (!collection) return;
    // A collection starts at its first page; a bare page (no `first`) is read as it is.
    let page = "first" in collection
      ? await this.#resolve(collection.first, statusUri)
      : collection;
    const visited = new Set<string>();
    while (page) {
      for (const item of itemsOf(page)) yield item;
      const next = idOf(page.next);
      if (!next || visited.has(next)) return;
      visited.add(next);
      page = await this.#resolve(page.next, statusUri);
    }
  }

  /** An embedded object, or the document its IRI names (one page of the bound). */
  async #resolve(value: unknown, statusUri: string): Promise<Json | null> {
    const id = idOf(value);
    if (id && !sameOrigin(id, statusUri)) return null;
    // Embedded (the Note's collection, its first page): part of a document its server sent.
    if (isJson(value) && ["items", "orderedItems", "first", "next"].some((k) => k in value)) {
      return value;
    }
    if (!id || this.#pages >= MAX_PAGES) return null;
    this.#pages++;
    return await this.#fetchJson(id);
  }

  /** A document fetched with the instance actor's signature, within the budget; null on failure. */
  async #fetchJson(url: string): Promise<Json | null> {
    try {
      this.#loader ??= this.#budget.wrap(await instanceDocumentLoader(this.#ctx));
      const { document } = await this.#loader(url);
      return isJson(document) ? document : null;
    } catch (error) {
      logger.debug("Crawl: could not fetch {url}: {error}", { url, error });
      return null;
    }
  }
}

function isJson(value: unknown): value is Json {
  return value != null && typeof value === "object" && !Array.isArray(value);
}

/** The IRI of a link value: a string, or an object's `id` (or a Link's `href`). */
function idOf(value: unknown): string | null {
  if (typeof value === "string") return webUrl(value);
  if (isJson(value)) return webUrl(typeof value.id === "string" ? value.id : null);
  return null;
}

/** The IRIs of a page's items (`orderedItems` or `items`; IRIs or embedded objects). */
function itemsOf(page: Json): string[] {
  const raw = page.orderedItems ?? page.items;
  const list = Array.isArray(raw) ? raw : raw == null ? [] : [raw];
  return list.map(idOf).filter((u): u is string => u != null);
}
