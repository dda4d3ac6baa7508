/**
 * Per-viewer payloads of streamed events: THE SAME entities the REST API
 * returns to each viewer (api/entities/*), under the same rules (the one
 * visibility module, the viewer's filters of the stream's context).
 *
 * Statuses, the costly case, are rendered per event in a constant number
 * of queries whatever the number of viewers:
 * 1. at once: the status's bundle (row, media, tags; the entity cache's,
 *    else one statement), every candidate viewer's flags (favourited,
 *    reblogged, …) in one statement, and their filters (entity cache, one
 *    query per table for those missing);
 * 2. for public and hashtag streams, which signed-in viewers may see it
 *    there (blocks, mutes, domain blocks: db/queries/stream_viewers.ts).
 * Viewers whose view is identical (same flags, no filters, not an author
 * of what is shown: after a fresh post, nearly all of them) share ONE
 * serialization and so one payload and frame string.
 */
import { and, eq, or } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import { setImmediate } from "node:timers";
import type { AppContext } from "../../context.ts";
import type { FilterContext } from "../../actors/filters/rules.ts";
import { accountConversations, announcements } from "../../db/schema/mod.ts";
import { isId } from "../../db/ids.ts";
import { canSeeInPublic } from "../../db/queries/visibility.ts";
import { notificationsByIds } from "../../db/queries/notifications.ts";
import { viewerFlags, viewersSeeingInPublic } from "../../db/queries/stream_viewers.ts";
import { activeAnnouncement } from "../../actors/announcements/manage.ts";
import { serializeStatuses, type StatusRow } from "../entities/status.ts";
import { statusRows } from "../entities/status_hydration.ts";
import { viewerRowsFrom, type ViewKeys, viewKeys } from "./view_keys.ts";
import { loadContent, type StatusBundle } from "../entities/status_content.ts";
import { serializeNotifications } from "../entities/notification.ts";
import { serializeConversations } from "../entities/conversation.ts";
import { serializeAnnouncements } from "../entities/announcement.ts";
import { filtersOfViewers } from "./viewer_filters.ts";
import { Payload, type StreamConnection } from "./frames.ts";
import { normalizeTag, type StreamName, type Subscription } from "./streams.ts";

const logger = getLogger(["rookery", "streaming"]);

/** A subscription of a connection that an event goes to. */
export interface Target {
  conn: StreamConnection;
  sub: Subscription;
}

/** The filter context of a stream (Mastodon: home for user and list, public for the rest). */
function contextOf(name: StreamName): FilterContext {
  return name === "user" || name === "list" ? "home" : "public";
}

/** The distinct accounts of these targets' connections (anonymous ones left out). */
function viewersOf(...lists: Target[][]): string[] {
  const ids = new Set<string>();
  for (const targets of lists) {
    for (let i = 0; i < targets.length; i++) {
      const id = targets[i].conn.accountId;
      if (id != null) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * A status's bundle (its row, media, tags…): the entity cache's, else
 * loaded in one statement and cached (the Status serializer then finds it).
 */
async function loadBundle(ctx: AppContext, statusId: string): Promise<StatusBundle | undefined> {
  const cache = ctx.core.entityCache;
  const epoch = await cache.begin();
  let bundle = cache.enabled ? cache.statuses.get(statusId) : undefined;
  if (!bundle) {
    const loaded = await loadContent(ctx.database.db, ctx.mediaUrls, [statusId], []);
    bundle = loaded.statuses[0];
    if (bundle && cache.enabled) cache.storeStatus(epoch, bundle);
  }
  return bundle;
}

/**
 * Whether a public or hashtag stream shows this status, as Mastodon's
 * fan-out decides its public broadcasts: public originals only (no boosts,
 * nothing unlisted); the public streams leave out replies to other people,
 * the hashtag streams keep them; local/remote/media as named.
 */
export function publicStreamShows(
  sub: Subscription,
  row: StatusRow,
  bundle: StatusBundle | undefined,
): boolean {
  if (row.visibility !== "public" || row.reblogOfId) return false;
  const name = sub.name;
  if (name.startsWith("hashtag")) {
    if (name === "hashtag:local" && !row.local) return false;
    return bundle?.tags.some((t) => normalizeTag(t.name) === sub.tagKey) ?? false;
  }
  const replyToOther = (row.inReplyToId != null || row.inReplyToUri != null) &&
    row.inReplyToAccountId !== row.accountId;
  if (replyToOther) return false;
  if (name.startsWith("public:local") && !row.local) return false;
  if (name.startsWith("public:remote") && row.local) return false;
  if (name.endsWith(":media") && !(bundle?.media.length)) return false;
  return true;
}

/**
 * Delivers `update` or `status.update` of a status: to `direct` targets
 * (user and list streams: fan-out decided, so no check again) and to the
 * public and hashtag subscriptions in `publicCandidates` the status fits.
 */
export async function deliverStatus(
  ctx: AppContext,
  event: "update" | "status.update",
  statusId: string,
  direct: Target[],
  publicCandidates: Target[],
): Promise<void> {
  if (direct.length === 0 && publicCandidates.length === 0) return;
  // Everything that does not depend on the status's content at once: the
  // flags and filters of every viewer that may receive it.
  const candidates = viewersOf(direct, publicCandidates);
  const [bundle, flagRows, filters] = await Promise.all([
    loadBundle(ctx, statusId),
    // An update is a status its event created (a post, a boost, an approved reply).
    viewerFlags(ctx.database, [statusId], candidates, event === "update" ? [statusId] : []),
    filtersOfViewers(ctx, candidates),
  ]);
  if (!bundle || bundle.row.deletedAt) return;
  const row = bundle.row;
  const targets = [...direct, ...await publicTargets(ctx, bundle, publicCandidates)];
  if (targets.length === 0) return;
  const flags = viewKeys(flagRows);
  flags.authors.add(row.accountId);
  await Promise.all(
    viewGroups(targets, flags, filters).map(async ({ viewer, context, targets }) => {
      const rows = viewer == null ? undefined : viewerRowsFrom(flags.keyOf(viewer), flags.quotes);
      const [json] = await serializeStatuses(
        ctx,
        [row],
        viewer ? { accountId: viewer } : null,
        rows,
        { context },
      );
      if (!json) return; // a hide filter, or nothing left to show
      const payload = new Payload(event, JSON.stringify(json));
      await deliverPlain(targets, payload);
    }),
  );
}

/** The public and hashtag subscriptions a status fits, among those its viewers may see it on. */
async function publicTargets(
  ctx: AppContext,
  bundle: StatusBundle,
  candidates: Target[],
): Promise<Target[]> {
  const row = bundle.row;
  const fitting = candidates.filter((t) => publicStreamShows(t.sub, row, bundle));
  if (fitting.length === 0) return fitting;
  // Who may see it on public streams: one statement for every signed-in viewer.
  const signedIn = viewersOf(fitting);
  const anonymous = fitting.some((t) => t.conn.accountId == null);
  const [allowed, anonymousMay] = await Promise.all([
    viewersSeeingInPublic(ctx.database, row.id, signedIn),
    anonymous ? canSeeInPublic(ctx.database.db, null, row) : false,
  ]);
  return fitting.filter((t) =>
    t.conn.accountId == null ? anonymousMay : allowed.has(t.conn.accountId)
  );
}

/** Targets whose view of a status is the same: rendered once for `viewer`, sent to all. */
interface ViewGroup {
  viewer: string | null;
  context: FilterContext;
  targets: Target[];
}

/**
 * Groups identical views: the anonymous, the authors of what is shown and
 * viewers with filters each see their own; everyone else by their flags
 * (after a fresh post, nearly everyone shares one view).
 */
function viewGroups(
  targets: Target[],
  flags: ViewKeys,
  /** The viewers with filters (filtersOfViewers leaves out the others). */
  filters: Map<string, unknown[]>,
): ViewGroup[] {
  // Two maps: viewers who share flags are grouped by the key string itself
  // (no per-target string to build and hash), the others by who they are.
  const shared = new Map<string, ViewGroup>();
  const own = new Map<string, ViewGroup>();
  const add = (groups: Map<string, ViewGroup>, key: string, t: Target, context: FilterContext) => {
    const group = groups.get(key);
    if (group) group.targets.push(t);
    else groups.set(key, { viewer: t.conn.accountId, context, targets: [t] });
  };
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i];
    const viewer = t.conn.accountId;
    const context = contextOf(t.sub.name);
    if (viewer == null) add(own, "anonymous", t, context);
    else if (flags.authors.has(viewer)) add(own, `self:${viewer}:${context}`, t, context);
    else if (filters.has(viewer)) {
      add(own, `filtered:${viewer}:${context}`, t, context);
    } else add(shared, flags.keyOf(viewer) ?? "", t, context);
  }
  return [...shared.values(), ...own.values()];
}

/**
 * Delivers `delete` of a status: its id, the same for everyone (Mastodon
 * filters no deletes), to the feeds that held it and to the public and
 * hashtag subscriptions it fitted.
 */
export async function deliverDelete(
  ctx: AppContext,
  statusId: string,
  direct: Target[],
  publicCandidates: Target[],
): Promise<void> {
  const payload = new Payload("delete", statusId);
  await deliverPlain(direct, payload);
  if (publicCandidates.length === 0) return;
  // A deleted status's row stays (deleted_at set); its bundle may be gone.
  const [row] = await statusRows(ctx.database.db, [statusId]);
  if (!row) return;
  const bundle = await loadBundle(ctx, statusId);
  await deliverPlain(
    publicCandidates.filter((t) => publicStreamShows(t.sub, row, bundle)),
    payload,
  );
}

/** Delivers a notification of `accountId` (the v1 Notification entity, notifications filters). */
export async function deliverNotification(
  ctx: AppContext,
  accountId: string,
  notificationId: string,
  targets: Target[],
): Promise<void> {
  if (targets.length === 0 || !isId(notificationId)) return;
  const rows = await notificationsByIds(ctx.database.db, accountId, [notificationId]);
  const [json] = await serializeNotifications(ctx, rows, accountId);
  if (!json) return;
  const payload = new Payload("notification", JSON.stringify(json));
  await deliverPlain(targets, payload);
}

/** Delivers a conversation of `accountId` (the Conversation entity). */
export async function deliverConversation(
  ctx: AppContext,
  accountId: string,
  conversationId: string,
  targets: Target[],
): Promise<void> {
  if (targets.length === 0 || !isId(conversationId)) return;
  const { db } = ctx.database;
  // The event may name the account's conversation row or the conversation itself.
  const [row] = await db.select().from(accountConversations).where(and(
    eq(accountConversations.accountId, accountId),
    or(
      eq(accountConversations.id, conversationId),
      eq(accountConversations.conversationId, conversationId),
    ),
  )).limit(1);
  if (!row) return;
  const [json] = await serializeConversations(ctx, [row], accountId);
  if (!json) return;
  const payload = new Payload("conversation", JSON.stringify(json));
  await deliverPlain(targets, payload);
}

/**
 * Delivers a published (or changed) announcement to every `user` stream.
 * Rendered once, for nobody in particular, as Mastodon does (`read` false,
 * no reaction marked `me`): a client reads its own state from the REST API.
 */
export async function deliverAnnouncement(
  ctx: AppContext,
  announcementId: string,
  targets: Target[],
): Promise<void> {
  if (targets.length === 0 || !isId(announcementId)) return;
  const [row] = await ctx.database.db.select().from(announcements)
    .where(and(eq(announcements.id, announcementId), activeAnnouncement())).limit(1);
  if (!row) return;
  // "0" is no account: nothing is read or reacted to by it.
  const [json] = await serializeAnnouncements(ctx, [row], "0");
  if (!json) return;
  const payload = new Payload("announcement", JSON.stringify(json));
  await deliverPlain(targets, payload);
}

/**
 * Sends the same payload to every target, {@link SEND_SLICE} at a time: a
 * post to 10,000 sockets is 50 ms or more of sends, during which requests
 * (the next post, a timeline read) would otherwise wait.
 */
export async function deliverPlain(targets: Target[], payload: Payload): Promise<void> {
  for (let i = 0; i < targets.length; i++) {
    if (i > 0 && i % SEND_SLICE === 0) await nextTurn();
    targets[i].conn.send(targets[i].sub, payload);
  }
}

/**
 * Sends between two turns of the event loop. 500: at 10,000 sockets, 155 to
 * 160 ms of server CPU a post against 168 to 176 at 1,000 (three rounds each
 * in turn, docs/benchmarks.md, fourth pass). Not explained by a profile;
 * likely the caches: each send copies the frame into a write of its own.
 */
export const SEND_SLICE = 500;

/** Resolves after the event loop has handled what was waiting (I/O included). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Logs a failed delivery (a dispatch must never stop the hub). */
export function deliveryFailed(event: string, error: unknown): void {
  logger.warn("Could not stream a {event} event: {error}", { event, error });
}
