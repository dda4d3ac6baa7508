/**
 * The Status entity (Mastodon 4.5): the one serializer from `statuses` rows
 * to JSON, used by every route that shows statuses.
 *
 * {@link serializeStatuses} hydrates a whole page at once (see
 * status_hydration.ts): it gathers every status the page shows (the rows, the
 * statuses they boost, the statuses those quote), then loads each kind of
 * related row with one query (accounts, media, mentions, tags, polls and
 * votes, applications, cards, quotes, and the viewer's favourites, boosts,
 * bookmarks, pins and muted threads together), never one query per row.
 *
 * Decisions:
 * - A boost (reblog wrapper) shows no content of its own, as Mastodon: empty
 *   content, no media, mentions, tags, poll or card, and the viewer flags of
 *   the boosted status.
 * - `pinned` is present only on the viewer's own pinnable statuses (public,
 *   unlisted, private originals); the viewer flags are absent anonymously.
 * - A quote shows the quoted status only when the quote is accepted and the
 *   viewer may see the quoted status; one level deep, deeper quotes are
 *   ShallowQuotes.
 * - `text` (the plain source) is added only by the delete response.
 */
import type { AppContext } from "../../context.ts";
import {
  effectiveQuotePolicy,
  quotePermission,
  type QuotePolicy,
} from "../../model/quote_policy.ts";
import { isFollowerVisibility } from "../../model/visibility.ts";
import type { statuses } from "../../db/schema/mod.ts";
import { type Account, type CustomEmoji, SENSITIZED } from "./account.ts";
import { emojisUsedIn } from "./custom_emoji.ts";
import type { MediaAttachmentJson } from "./media_attachment.ts";
import { pollEntity, type PollJson } from "./poll.ts";
import { type Collection, collectionsById } from "./collection.ts";
import type { FilterResultJson } from "./filter_result.ts";
import type { CompiledFilter } from "../../actors/filters/match.ts";
import { type InteractionPolicyJson, interactionPolicyJson } from "./interaction_policy.ts";
import { escapeHtml } from "../../actors/formatting/escape_html.ts";
import { applyFilters, type FilterOptions, viewerFilters } from "./status_filters.ts";
import { markMissingAttribution } from "./card_attribution.ts";
import {
  hydrate,
  type Hydration,
  statusRows,
  unique,
  type ViewerRows,
} from "./status_hydration.ts";

export type StatusRow = typeof statuses.$inferSelect;

/** Who is looking: null for anonymous requests. */
export type Viewer = { accountId: string } | null;

/** A mention as the Status entity shows it. */
export interface MentionJson {
  id: string;
  username: string;
  url: string;
  acct: string;
}

/** Quote (the quoted status inline) or ShallowQuote (its id only). */
export type QuoteJson =
  | { state: string; quoted_status: StatusJson | null }
  | { state: string; quoted_status_id: string | null };

/** QuoteApproval (Mastodon 4.5). */
export interface QuoteApprovalJson {
  automatic: string[];
  manual: string[];
  current_user: "automatic" | "manual" | "denied" | "unknown";
}

/** A PreviewCard. */
export interface PreviewCardJson {
  url: string;
  title: string;
  description: string;
  /** The page's language; not recorded yet. */
  language: string | null;
  type: string;
  authors: { name: string; url: string; account: null }[];
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  html: string;
  width: number;
  height: number;
  image: string | null;
  image_description: string;
  embed_url: string;
  blurhash: string | null;
  published_at: null;
  /** The viewer wrote the status, the page names them its creator, and its site is not one of their attribution domains (card_attribution.ts). */
  missing_attribution: boolean;
}

/** The Status entity. */
export interface StatusJson {
  id: string;
  created_at: string;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  sensitive: boolean;
  spoiler_text: string;
  visibility: string;
  language: string | null;
  uri: string;
  url: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  quotes_count: number;
  edited_at: string | null;
  favourited?: boolean;
  reblogged?: boolean;
  muted?: boolean;
  bookmarked?: boolean;
  pinned?: boolean;
  content: string;
  text?: string | null;
  filtered?: FilterResultJson[];
  reblog: StatusJson | null;
  application?: { name: string; website: string | null };
  account: Account;
  media_attachments: MediaAttachmentJson[];
  mentions: MentionJson[];
  tags: { name: string; url: string }[];
  emojis: CustomEmoji[];
  /** The collections it links to (Mastodon 4.6), as the viewer sees them. */
  tagged_collections: Collection[];
  quote: QuoteJson | null;
  quote_approval: QuoteApprovalJson;
  interaction_policy: InteractionPolicyJson;
  card: PreviewCardJson | null;
  poll: PollJson | null;
}

/**
 * The entity `make` builds, shared by the page's statuses that give the
 * same `key`: a page has a few distinct policies among forty statuses, and
 * building one per status was a good part of the serializer's garbage.
 * Nothing changes these entities once built.
 */
function shared<T>(h: Hydration, key: string, make: () => T): T {
  let entity = h.shared.get(key) as T | undefined;
  if (entity === undefined) h.shared.set(key, entity = make());
  return entity;
}

/** Who may quote a status, and whether the viewer may (QuoteApproval). */
function quoteApproval(row: StatusRow, viewer: Viewer, h: Hydration): QuoteApprovalJson {
  const policy = effectiveQuotePolicy(row.visibility, row.quoteApprovalPolicy as QuotePolicy);
  const permission = viewer ? quotePermission(row, viewer.accountId) : null;
  const current: QuoteApprovalJson["current_user"] = permission == null
    ? "unknown"
    : permission === "yes" ||
        (permission === "if_follower" && h.followedAuthors.has(row.accountId))
    ? "automatic"
    : "denied";
  return shared(h, `q|${policy}|${current}`, () => ({
    automatic: policy === "public" ? ["public"] : policy === "followers" ? ["followers"] : [],
    manual: [],
    current_user: current,
  }));
}

/**
 * Who may interact with `row`, and the viewer (InteractionPolicy). A reply
 * to a held status waits unless its author started the thread; the
 * serializer does not look the thread up, so it never counts the viewer as
 * its starter (a held status is shown to two accounts only).
 */
function interactionPolicy(row: StatusRow, viewer: Viewer, h: Hydration): InteractionPolicyJson {
  const me = viewer?.accountId;
  const mentioned = me != null &&
    (row.inReplyToAccountId === me ||
      (h.bundles.get(row.id)?.mentions.some((m) => m.id === me) ?? false));
  const facts = me == null ? null : {
    isAuthor: row.accountId === me,
    mentionedOrRepliedTo: mentioned,
    followsAuthor: h.followedAuthors.has(row.accountId),
    followedByAuthor: h.followersOfViewer.has(row.accountId),
    actorUri: h.viewerUri,
    startedThread: false,
  };
  // A stored policy may name the viewer's IRI; without one, the built-in
  // rules (keywords only) make the entity a function of these fields.
  if (row.interactionPolicy != null) return interactionPolicyJson(row, facts);
  const who = facts
    ? `${+facts.isAuthor}${+mentioned}${+facts.followsAuthor}${+facts.followedByAuthor}`
    : "-";
  const key =
    `p|${row.local}|${row.visibility}|${row.quoteApprovalPolicy}|${row.pendingApproval}|${who}`;
  return shared(h, key, () => interactionPolicyJson(row, facts));
}

/**
 * What a held reply says to the two who see it (issue 34), after its
 * content: the replied-to author may approve it, its author waits. Never
 * stored, never federated; built from allow-listed tags only.
 */
function heldNote(row: StatusRow, viewer: Viewer, h: Hydration): string {
  if (!row.pendingApproval || !viewer || row.inReplyToAccountId == null) return "";
  if (viewer.accountId === row.inReplyToAccountId) {
    const page = `${h.origin}/settings/interaction_requests`;
    return `<p><em>This reply is waiting for your approval. Favourite, boost or reply to it to approve it, or decide at <a href="${page}">${page}</a>.</em></p>`;
  }
  if (viewer.accountId !== row.accountId) return "";
  const approver = h.bundles.get(row.id)?.mentions.find((m) => m.id === row.inReplyToAccountId);
  const who = approver ? `@${escapeHtml(approver.acct)}` : "the author";
  return `<p><em>Waiting for ${who} to approve this reply: until then only you and they can see it.</em></p>`;
}

function build(
  row: StatusRow,
  viewer: Viewer,
  h: Hydration,
  depth: number,
  tagged: ReadonlyMap<string, Collection>,
): StatusJson | null {
  const account = h.accounts.get(row.accountId);
  if (!account) return null;
  const boosted = row.reblogOfId ? h.statuses.get(row.reblogOfId) : undefined;
  const reblog = boosted ? build(boosted, viewer, h, depth, tagged) : null;
  if (row.reblogOfId && !reblog) return null;
  const proper = boosted ?? row;
  const bundle = boosted ? undefined : h.bundles.get(row.id);
  const poll = bundle?.poll ?? undefined;
  let quote: QuoteJson | null = null;
  const q = !boosted ? h.quotes.get(row.id) : undefined;
  if (q) {
    const visible = q.state === "accepted" && q.quotedStatusId != null &&
      h.visibleQuoted.has(q.quotedStatusId);
    if (depth > 0) {
      quote = { state: q.state, quoted_status_id: q.quotedStatusId };
    } else {
      const quoted = visible ? h.statuses.get(q.quotedStatusId!) : undefined;
      quote = {
        state: q.state,
        quoted_status: quoted ? build(quoted, viewer, h, 1, tagged) : null,
      };
    }
  }
  const app = bundle?.application ?? undefined;
  // Built in Mastodon's key order, so answers read like Mastodon's. The
  // object is made once with its keys in place: copying it into order
  // afterwards cost about 5% of a timeline request.
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    in_reply_to_id: boosted ? null : row.inReplyToId,
    in_reply_to_account_id: boosted ? null : row.inReplyToAccountId,
    // A sensitized author's statuses are sensitive to everyone but the author (as Mastodon).
    sensitive: boosted
      ? false
      : row.sensitive || (account[SENSITIZED] === true && viewer?.accountId !== row.accountId),
    spoiler_text: boosted ? "" : row.spoilerText,
    visibility: row.visibility,
    language: boosted ? null : row.language,
    uri: row.uri,
    url: row.url,
    replies_count: boosted ? 0 : row.repliesCount,
    reblogs_count: boosted ? 0 : row.reblogsCount,
    favourites_count: boosted ? 0 : row.favouritesCount,
    quotes_count: boosted ? 0 : row.quotesCount,
    edited_at: boosted ? null : row.editedAt?.toISOString() ?? null,
    ...(viewer
      ? {
        favourited: h.favourited.has(proper.id),
        reblogged: h.reblogged.has(proper.id),
        muted: proper.conversationId != null && h.mutedConversations.has(proper.conversationId),
        bookmarked: h.bookmarked.has(proper.id),
        ...(row.accountId === viewer.accountId && !boosted && isFollowerVisibility(row.visibility)
          ? { pinned: h.pinned.has(row.id) }
          : {}),
      }
      : {}),
    content: boosted ? "" : row.content + heldNote(row, viewer, h),
    ...(viewer ? { filtered: [] } : {}),
    reblog,
    ...(app ? { application: app } : {}),
    account,
    media_attachments: bundle?.media ?? [],
    mentions: bundle?.mentions ?? [],
    tags: bundle?.tags ?? [],
    emojis: bundle?.emojis ?? [],
    tagged_collections: (bundle?.taggedCollectionIds ?? []).flatMap((id) => tagged.get(id) ?? []),
    quote,
    quote_approval: quoteApproval(proper, viewer, h),
    interaction_policy: interactionPolicy(proper, viewer, h),
    card: bundle?.card ?? null,
    poll: poll
      ? pollEntity(
        poll,
        viewer,
        h.votes.get(poll.id) ?? [],
        emojisUsedIn(bundle?.emojis, poll.options),
      )
      : null,
  };
}

/**
 * The Collection entities of the collections the page's statuses link to,
 * for the viewer; no query at all when none links one (the common case:
 * the links are in the bundles already).
 */
function taggedCollections(
  ctx: AppContext,
  h: Hydration,
  viewer: Viewer,
): Promise<Map<string, Collection>> {
  const ids = [...h.bundles.values()].flatMap((bundle) => bundle.taggedCollectionIds);
  return collectionsById(ctx.database.db, ctx.config, ids, viewer?.accountId ?? null);
}

/**
 * Serializes a page of statuses for a viewer (null: anonymous), in the order
 * given. Rows whose author (or boosted status) cannot be loaded are skipped;
 * callers filter visibility before (see db/queries/visibility.ts). The
 * viewer's filters apply as `filters` says (status_filters.ts): rows a
 * `hide` filter of that context matches are left out, the others carry
 * their matches in `filtered`.
 */
export async function serializeStatuses(
  ctx: AppContext,
  rows: readonly StatusRow[],
  viewer: Viewer,
  viewerRows?: ViewerRows,
  filters: FilterOptions = {},
): Promise<StatusJson[]> {
  if (rows.length === 0) return [];
  const [h, compiled] = await Promise.all([
    hydrate(ctx, [...rows], viewer, viewerRows),
    viewer ? viewerFilters(ctx, viewer.accountId) : [],
  ]);
  const tagged = await taggedCollections(ctx, h, viewer);
  const out: StatusJson[] = [];
  for (const row of rows) {
    const json = build(row, viewer, h, 0, tagged);
    if (!json) continue;
    if (viewer && compiled.length > 0) {
      const { results, hidden } = applyFilters(row, h, viewer.accountId, compiled, filters);
      if (hidden) continue;
      if (results.length > 0) {
        json.filtered = results;
        if (json.reblog) json.reblog.filtered = results;
      }
      filterQuoted(json.reblog ?? json, h, viewer.accountId, compiled, filters);
    }
    out.push(json);
  }
  await markMissingAttribution(ctx, out, h.bundles, viewer);
  return out;
}

/**
 * A quoted status shown inside another lists its own matches in `filtered`
 * and is never left out: the client decides how to show a quote whose
 * filter says hide (Mastodon's web client collapses it).
 */
function filterQuoted(
  json: StatusJson,
  h: Hydration,
  viewerId: string,
  compiled: readonly CompiledFilter[],
  filters: FilterOptions,
): void {
  const quoted = json.quote && "quoted_status" in json.quote ? json.quote.quoted_status : null;
  const row = quoted ? h.statuses.get(quoted.id) : undefined;
  if (!quoted || !row) return;
  const { results } = applyFilters(row, h, viewerId, compiled, { ...filters, keep: row.id });
  if (results.length > 0) quoted.filtered = results;
}

/** Serializes one status (see {@link serializeStatuses}); null if it cannot be shown. */
export async function serializeStatus(
  ctx: AppContext,
  row: StatusRow,
  viewer: Viewer,
  filters: FilterOptions = {},
): Promise<StatusJson | null> {
  const [json] = await serializeStatuses(ctx, [row], viewer, undefined, filters);
  return json ?? null;
}

/** Loads statuses by id and serializes them in the order of `ids` (missing ids skipped). */
export async function serializeStatusIds(
  ctx: AppContext,
  ids: readonly string[],
  viewer: Viewer,
  filters: FilterOptions = {},
): Promise<StatusJson[]> {
  const rows = await statusRows(ctx.database.db, unique(ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return await serializeStatuses(
    ctx,
    ids.map((id) => byId.get(id)).filter((r): r is StatusRow => r != null),
    viewer,
    undefined,
    filters,
  );
}
