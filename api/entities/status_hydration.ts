/**
 * Loading for the Status serializer (api/entities/status.ts): everything a
 * page of statuses shows, in ONE statement (see {@link hydrationQuery}): the
 * boosted statuses, quotes and the quoted statuses the viewer may see, then
 * for all of them accounts, emoji, media, mentions, tags, polls and the
 * viewer's votes, applications, cards and the viewer's flags.
 *
 * Each kind comes back as a JSON array of rows shaped like drizzle's (see
 * db/queries/json_rows.ts), so the entity builders are the same as for
 * single-kind loaders. The statement is prepared once per connection, with
 * the ids as array parameters, so its text and plan are reused.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import {
  accounts,
  customEmojis,
  mediaAttachments,
  polls,
  previewCards,
  statuses,
} from "../../db/schema.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { jsonRows, revive } from "../../db/queries/json_rows.ts";
import { prepared } from "../../db/queries/prepared.ts";
import { visibleStatusFilter } from "../../db/queries/visibility.ts";
import {
  type Account,
  ACCOUNT_ENTITY_COLUMNS,
  accountEntitiesFromRows,
  type AccountEntityRow,
  type AccountWithUser,
  acctOf,
} from "./account.ts";
import { mediaAttachmentEntity, type MediaAttachmentRow } from "./media_attachment.ts";
import type { PollRow } from "./poll.ts";
import { type CustomEmoji, emojisByOwner } from "./custom_emoji.ts";
import type { MentionJson, PreviewCardJson, StatusRow, Viewer } from "./status.ts";

/** Everything loaded for a page, keyed by status id (or account/poll id). */
export interface Hydration {
  statuses: Map<string, StatusRow>;
  accounts: Map<string, Account>;
  media: Map<string, ReturnType<typeof mediaAttachmentEntity>[]>;
  mentions: Map<string, MentionJson[]>;
  tags: Map<string, { name: string; url: string }[]>;
  emojis: Map<string, CustomEmoji[]>;
  polls: { polls: Map<string, PollRow>; votes: Map<string, number[]> };
  applications: Map<string, { name: string; website: string | null }>;
  cards: Map<string, PreviewCardJson>;
  quotes: Map<string, { state: string; quotedStatusId: string | null }>;
  /** Quoted statuses the viewer may see. */
  visibleQuoted: Set<string>;
  favourited: Set<string>;
  reblogged: Set<string>;
  bookmarked: Set<string>;
  pinned: Set<string>;
  mutedConversations: Set<string>;
  /** Authors the viewer follows (for quote_approval). */
  followedAuthors: Set<string>;
}

/** The distinct non-null ids, in first-seen order. */
export function unique(ids: Iterable<string | null | undefined>): string[] {
  const set = new Set<string>();
  for (const id of ids) if (id != null) set.add(id);
  return [...set];
}

/** Status rows by id (one prepared query; none when `ids` is empty). */
export async function statusRows(db: Executor, ids: string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  return await prepared(
    db,
    "status_rows",
    () => db.select().from(statuses).where(anyId(statuses.id, IDS)).prepare("status_rows"),
  ).execute({ ids });
}

/** The placeholder every one-array query here is executed with. */
const IDS = sql.placeholder("ids");

function group<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

type PreviewCardRow = typeof previewCards.$inferSelect;
type CustomEmojiRow = typeof customEmojis.$inferSelect;

function cardEntity(row: PreviewCardRow): PreviewCardJson {
  return {
    url: row.url,
    title: row.title,
    description: row.description,
    language: null,
    type: row.type,
    // Mastodon lists one author when the page names one (by name or link).
    authors: row.authorName || row.authorUrl
      ? [{ name: row.authorName, url: row.authorUrl, account: null }]
      : [],
    author_name: row.authorName,
    author_url: row.authorUrl,
    provider_name: row.providerName,
    provider_url: row.providerUrl,
    html: row.html,
    width: row.width,
    height: row.height,
    image: row.imageUrl,
    image_description: "",
    embed_url: row.embedUrl,
    blurhash: row.blurhash,
    published_at: null,
  };
}

/** The kinds of row one hydration statement brings back, each a JSON array. */
interface Loaded {
  boosted: unknown;
  quotes: { statusId: string; state: string; quotedStatusId: string | null }[] | null;
  visibleQuoted: unknown;
  accounts: unknown;
  accountEmojis: unknown;
  statusEmojis: unknown;
  media: unknown;
  mentions:
    | {
      statusId: string;
      id: string;
      username: string;
      domain: string | null;
      url: string | null;
      uri: string;
    }[]
    | null;
  tags: { statusId: string; name: string }[] | null;
  polls: unknown;
  votes: { pollId: string; choice: number }[] | null;
  applications: { id: string; name: string; website: string | null }[] | null;
  cards: unknown;
  favourited: string[] | null;
  reblogged: string[] | null;
  bookmarked: string[] | null;
  pinned: string[] | null;
  muted: string[] | null;
  followed: string[] | null;
}

/**
 * The one statement that loads a page's related rows. Given the page's ids,
 * the ids it boosts and the viewer, it finds the quotes, which quoted
 * statuses the viewer may see (the one visibility module's filter), and for
 * everything shown: accounts (with their users and move targets), emoji,
 * media, mentions, tags, polls and votes, applications, cards and the
 * viewer's flags. One round trip instead of a dozen: per query overhead, not
 * the work, was most of a timeline request's cost on both databases.
 */
function hydrationQuery(db: Executor, signedIn: boolean) {
  const viewer = signedIn ? sql.placeholder("viewer") : null;
  const v = sql`${viewer}::bigint`;
  const ids = sql`${sql.placeholder("ids")}::bigint[]`;
  const boostedIds = sql`${sql.placeholder("boosted")}::bigint[]`;
  const shownAccounts = sql`(SELECT account_id FROM hs UNION
    SELECT x.moved_to_account_id FROM accounts x
    WHERE x.id IN (SELECT account_id FROM hs) AND x.moved_to_account_id IS NOT NULL)`;
  const emojisOf = (link: SQL, owner: SQL, owners: SQL) =>
    jsonRows(
      customEmojis,
      "e",
      sql`JOIN ${link} l ON l.custom_emoji_id = e.id
        WHERE l.${owner} IN ${owners} AND NOT e.disabled ORDER BY e.shortcode`,
      sql`l.${owner}::text AS "ownerId"`,
    );
  const flags = signedIn
    ? sql`,
    ARRAY(SELECT h.id::text FROM hs h WHERE EXISTS (SELECT 1 FROM favourites f
      WHERE f.account_id = ${v} AND f.status_id = h.id)) AS favourited,
    ARRAY(SELECT h.id::text FROM hs h WHERE EXISTS (SELECT 1 FROM statuses r
      WHERE r.reblog_of_id = h.id AND r.account_id = ${v} AND r.deleted_at IS NULL)) AS reblogged,
    ARRAY(SELECT h.id::text FROM hs h WHERE EXISTS (SELECT 1 FROM bookmarks b
      WHERE b.account_id = ${v} AND b.status_id = h.id)) AS bookmarked,
    ARRAY(SELECT h.id::text FROM hs h WHERE h.account_id = ${v} AND EXISTS (SELECT 1
      FROM status_pins p WHERE p.account_id = ${v} AND p.status_id = h.id)) AS pinned,
    ARRAY(SELECT DISTINCT h.conversation_id::text FROM hs h WHERE EXISTS (SELECT 1
      FROM conversation_mutes m WHERE m.account_id = ${v}
        AND m.conversation_id = h.conversation_id)) AS muted,
    ARRAY(SELECT DISTINCT h.account_id::text FROM hs h
      WHERE h.quote_approval_policy = 'followers' AND EXISTS (SELECT 1 FROM follows f
        WHERE f.account_id = ${v} AND f.target_account_id = h.account_id)) AS followed,
    (SELECT json_agg(json_build_object('pollId', pv.poll_id::text, 'choice', pv.choice))
      FROM poll_votes pv WHERE pv.account_id = ${v}
        AND pv.poll_id IN (SELECT poll_id FROM ho)) AS votes`
    : sql``;
  const statement = sql`(WITH
    hb AS (SELECT id FROM statuses WHERE id = ANY(${ids} || ${boostedIds})),
    hq AS (SELECT status_id, state, quoted_status_id FROM quotes
      WHERE status_id IN (SELECT id FROM hb)),
    hv AS (SELECT statuses.id FROM statuses
      WHERE statuses.id IN (SELECT quoted_status_id FROM hq WHERE state = 'accepted')
        AND ${visibleStatusFilter(viewer)}),
    hs AS (SELECT id, account_id, reblog_of_id, poll_id, application_id, local, conversation_id,
        quote_approval_policy FROM statuses
      WHERE id IN (SELECT id FROM hb UNION SELECT id FROM hv)),
    ho AS (SELECT id, poll_id, application_id, local FROM hs WHERE reblog_of_id IS NULL)
    SELECT
    ${jsonRows(statuses, "s", sql`WHERE s.id = ANY(${boostedIds})`)} AS boosted,
    (SELECT json_agg(json_build_object('statusId', status_id::text, 'state', state,
      'quotedStatusId', quoted_status_id::text)) FROM hq) AS quotes,
    ${jsonRows(statuses, "s", sql`WHERE s.id IN (SELECT id FROM hv)`)} AS visible_quoted,
    ${
    jsonRows(
      accounts,
      "a",
      sql`LEFT JOIN users u ON u.account_id = a.id WHERE a.id IN ${shownAccounts}`,
      sql`u.role AS "userRole", u.settings AS "userSettings"`,
      ACCOUNT_ENTITY_COLUMNS,
    )
  } AS accounts,
    ${emojisOf(sql`accounts_custom_emojis`, sql`account_id`, shownAccounts)} AS account_emojis,
    ${
    emojisOf(sql`statuses_custom_emojis`, sql`status_id`, sql`(SELECT id FROM ho)`)
  } AS status_emojis,
    ${
    jsonRows(mediaAttachments, "m", sql`WHERE m.status_id IN (SELECT id FROM ho) ORDER BY m.id`)
  } AS media,
    (SELECT json_agg(json_build_object('statusId', m.status_id::text, 'id', a.id::text,
      'username', a.username, 'domain', a.domain, 'url', a.url, 'uri', a.uri) ORDER BY m.id)
      FROM mentions m JOIN accounts a ON a.id = m.account_id
      WHERE m.status_id IN (SELECT id FROM ho) AND NOT m.silent) AS mentions,
    (SELECT json_agg(json_build_object('statusId', st.status_id::text, 'name', t.name))
      FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
      WHERE st.status_id IN (SELECT id FROM ho)) AS tags,
    ${jsonRows(polls, "p", sql`WHERE p.id IN (SELECT poll_id FROM ho)`)} AS polls,
    (SELECT json_agg(json_build_object('id', o.id::text, 'name', o.name, 'website', o.website))
      FROM oauth_applications o
      WHERE o.id IN (SELECT application_id FROM ho WHERE local)) AS applications,
    ${
    jsonRows(
      previewCards,
      "c",
      sql`JOIN statuses_preview_cards spc ON spc.preview_card_id = c.id
        WHERE spc.status_id IN (SELECT id FROM ho)`,
      sql`spc.status_id::text AS "statusId"`,
    )
  } AS cards
    ${flags}) AS h`;
  const f = (name: string) => sql.raw(`h.${name}`);
  const fields: Record<string, SQL> = {
    boosted: f("boosted"),
    quotes: f("quotes"),
    visibleQuoted: f("visible_quoted"),
    accounts: f("accounts"),
    accountEmojis: f("account_emojis"),
    statusEmojis: f("status_emojis"),
    media: f("media"),
    mentions: f("mentions"),
    tags: f("tags"),
    polls: f("polls"),
    applications: f("applications"),
    cards: f("cards"),
  };
  if (signedIn) {
    for (const name of ["favourited", "reblogged", "bookmarked", "pinned", "muted", "followed"]) {
      fields[name] = f(name);
    }
    fields.votes = f("votes");
  }
  const name = signedIn ? "status_hydration" : "status_hydration_anonymous";
  return db.select(fields).from(statement).prepare(name);
}

/** Loads everything a page of statuses shows for the viewer, in one statement. */
export async function hydrate(
  ctx: AppContext,
  rows: StatusRow[],
  viewer: Viewer,
): Promise<Hydration> {
  const db = ctx.database.db;
  const { config } = ctx;
  const origin = config.origin;
  const all = new Map(rows.map((r) => [r.id, r]));
  const boostedIds = unique(rows.map((r) => r.reblogOfId)).filter((id) => !all.has(id));
  const signedIn = viewer != null;
  const query = prepared(
    db,
    signedIn ? "status_hydration" : "status_hydration_anonymous",
    () => hydrationQuery(db, signedIn),
  );
  const [loaded] = await query.execute({
    ids: [...all.keys()],
    boosted: boostedIds,
    ...(viewer ? { viewer: viewer.accountId } : {}),
  }) as unknown as Loaded[];

  for (const r of revive<StatusRow>(statuses, loaded.boosted)) all.set(r.id, r);
  const quotes = new Map((loaded.quotes ?? []).map((q) => [q.statusId, q]));
  const visibleQuoted = new Set<string>();
  for (const r of revive<StatusRow>(statuses, loaded.visibleQuoted)) {
    visibleQuoted.add(r.id);
    if (!all.has(r.id)) all.set(r.id, r);
  }

  const accountRows = revive<AccountEntityRow & { userRole: string | null; userSettings: unknown }>(
    accounts,
    loaded.accounts,
  ).map((a) => ({
    account: a,
    role: a.userRole,
    settings: a.userSettings as AccountWithUser["settings"],
  }));
  const accountEmojis = emojisByOwner(origin, emojiRows(loaded.accountEmojis));
  const accountMap = accountEntitiesFromRows(config, accountRows, accountRows, accountEmojis);

  const media = new Map<string, ReturnType<typeof mediaAttachmentEntity>[]>();
  for (const m of revive<MediaAttachmentRow>(mediaAttachments, loaded.media)) {
    const list = media.get(m.statusId!);
    const entity = mediaAttachmentEntity(config, m);
    if (list) list.push(entity);
    else media.set(m.statusId!, [entity]);
  }
  const pollMap = new Map(revive<PollRow>(polls, loaded.polls).map((p) => [p.id, p]));
  const votes = new Map<string, number[]>();
  for (const v of loaded.votes ?? []) {
    const list = votes.get(v.pollId);
    if (list) list.push(v.choice);
    else votes.set(v.pollId, [v.choice]);
  }
  return {
    statuses: all,
    accounts: accountMap,
    media,
    mentions: new Map(
      [...group(loaded.mentions ?? [], (m) => m.statusId)].map(([k, list]) => [
        k,
        list.map((m) => ({ id: m.id, username: m.username, url: m.url ?? m.uri, acct: acctOf(m) })),
      ]),
    ),
    tags: new Map(
      [...group(loaded.tags ?? [], (t) => t.statusId)].map(([k, list]) => [
        k,
        list.map((t) => ({
          name: t.name.toLowerCase(),
          url: `${origin}/tags/${encodeURIComponent(t.name.toLowerCase())}`,
        })),
      ]),
    ),
    emojis: emojisByOwner(origin, emojiRows(loaded.statusEmojis)),
    polls: { polls: pollMap, votes },
    applications: new Map(
      (loaded.applications ?? []).map((a) => [a.id, { name: a.name, website: a.website }]),
    ),
    cards: new Map(
      revive<PreviewCardRow & { statusId: string }>(previewCards, loaded.cards).map((c) => [
        c.statusId,
        cardEntity(c),
      ]),
    ),
    quotes,
    visibleQuoted,
    favourited: new Set(loaded.favourited),
    reblogged: new Set(loaded.reblogged),
    bookmarked: new Set(loaded.bookmarked),
    pinned: new Set(loaded.pinned),
    mutedConversations: new Set(loaded.muted),
    followedAuthors: new Set(loaded.followed),
  };
}

/** Emoji rows with the id of the status or account using them. */
function emojiRows(rows: unknown) {
  return revive<CustomEmojiRow & { ownerId: string }>(customEmojis, rows).map((emoji) => ({
    ownerId: emoji.ownerId,
    emoji,
  }));
}
