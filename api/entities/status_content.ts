/**
 * Loading what every viewer sees alike in statuses and their authors, in ONE
 * prepared statement: the status rows with their media, mentions, tags,
 * emoji, polls, applications, cards and linked collections, and the Account entities of their
 * authors (and of accounts asked for by id). The results are kept in the
 * entity cache (entity_cache.ts); status_hydration.ts asks only for what the
 * cache lacks.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import type { MediaUrls } from "../../actors/media/urls.ts";
import {
  accounts,
  customEmojis,
  mediaAttachments,
  polls,
  previewCards,
  statuses,
} from "../../db/schema/mod.ts";
import { jsonRows, revive } from "../../db/queries/json_rows.ts";
import { prepared } from "../../db/queries/prepared.ts";
import {
  type Account,
  ACCOUNT_ENTITY_COLUMNS,
  accountEntitiesFromRows,
  type AccountEntityRow,
  type AccountWithUser,
  acctOf,
} from "./account.ts";
import { mediaAttachmentEntity, type MediaAttachmentJson } from "./media_attachment.ts";
import type { PollRow } from "./poll.ts";
import { type CustomEmoji, emojisByOwner } from "./custom_emoji.ts";
import type { MentionJson, PreviewCardJson, StatusRow } from "./status.ts";
import { localUris } from "../../model/uris.ts";

/** A status as every viewer sees it: its row and everything shown with it. */
export interface StatusBundle {
  row: StatusRow;
  media: MediaAttachmentJson[];
  mentions: MentionJson[];
  tags: { name: string; url: string }[];
  emojis: CustomEmoji[];
  poll: PollRow | null;
  application: { name: string; website: string | null } | null;
  card: PreviewCardJson | null;
  /** The card's id, for invalidation (cards are shared between statuses). */
  cardId: string | null;
  /** The card's `fediverse:creator` handle (card_attribution.ts). */
  cardCreator: string | null;
  /** The collections the status links to (`tagged_collections`, Mastodon 4.6). */
  taggedCollectionIds: string[];
}

type PreviewCardRow = typeof previewCards.$inferSelect;
type CustomEmojiRow = typeof customEmojis.$inferSelect;

/** The PreviewCard entity of a stored card (also the base of a trending link). */
export function cardEntity(urls: MediaUrls, row: PreviewCardRow): PreviewCardJson {
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
    // Our copy of the page's image when we have one.
    image: row.imageKey
      ? urls.file(row.imageKey)
      : row.imageRemoteUrl
      ? urls.proxy({ kind: "card", variant: "image" }, row.id)
      : null,
    image_description: "",
    embed_url: row.embedUrl,
    blurhash: row.blurhash,
    published_at: null,
    missing_attribution: false,
  };
}

/** The kinds of row the statement brings back, each a JSON array. */
interface Loaded {
  statuses: unknown;
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
  applications: { id: string; name: string; website: string | null }[] | null;
  cards: unknown;
  taggedCollections: { statusId: string; collectionId: string }[] | null;
}

function contentQuery(db: Executor) {
  const ids = sql`${sql.placeholder("ids")}::bigint[]`;
  const accountIds = sql`${sql.placeholder("accounts")}::bigint[]`;
  // The accounts asked for, the authors of the statuses, and where any of them moved.
  const shownAccounts = sql`(SELECT id FROM ca UNION
    SELECT x.moved_to_account_id FROM accounts x
    WHERE x.id IN (SELECT id FROM ca) AND x.moved_to_account_id IS NOT NULL)`;
  const emojisOf = (link: SQL, owner: SQL, owners: SQL) =>
    jsonRows(
      customEmojis,
      "e",
      sql`JOIN ${link} l ON l.custom_emoji_id = e.id
        WHERE l.${owner} IN ${owners} AND NOT e.disabled ORDER BY e.shortcode`,
      sql`l.${owner}::text AS "ownerId"`,
    );
  const statement = sql`(WITH
    cs AS (SELECT id, account_id FROM statuses WHERE id = ANY(${ids})),
    ca AS (SELECT unnest(${accountIds}) AS id UNION SELECT account_id FROM cs),
    co AS (SELECT id, poll_id, application_id, local FROM statuses
      WHERE id = ANY(${ids}) AND reblog_of_id IS NULL)
    SELECT
    ${jsonRows(statuses, "s", sql`WHERE s.id = ANY(${ids})`)} AS statuses,
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
    emojisOf(sql`statuses_custom_emojis`, sql`status_id`, sql`(SELECT id FROM co)`)
  } AS status_emojis,
    ${
    jsonRows(mediaAttachments, "m", sql`WHERE m.status_id IN (SELECT id FROM co) ORDER BY m.id`)
  } AS media,
    (SELECT json_agg(json_build_object('statusId', m.status_id::text, 'id', a.id::text,
      'username', a.username, 'domain', a.domain, 'url', a.url, 'uri', a.uri) ORDER BY m.id)
      FROM mentions m JOIN accounts a ON a.id = m.account_id
      WHERE m.status_id IN (SELECT id FROM co) AND NOT m.silent) AS mentions,
    (SELECT json_agg(json_build_object('statusId', st.status_id::text, 'name', t.name))
      FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
      WHERE st.status_id IN (SELECT id FROM co)) AS tags,
    ${jsonRows(polls, "p", sql`WHERE p.id IN (SELECT poll_id FROM co)`)} AS polls,
    (SELECT json_agg(json_build_object('id', o.id::text, 'name', o.name, 'website', o.website))
      FROM oauth_applications o
      WHERE o.id IN (SELECT application_id FROM co WHERE local)) AS applications,
    ${
    jsonRows(
      previewCards,
      "c",
      sql`JOIN statuses_preview_cards spc ON spc.preview_card_id = c.id
        WHERE spc.status_id IN (SELECT id FROM co)`,
      sql`spc.status_id::text AS "statusId"`,
    )
  } AS cards,
    (SELECT json_agg(json_build_object('statusId', sc.status_id::text,
      'collectionId', sc.collection_id::text) ORDER BY sc.collection_id)
      FROM status_collections sc WHERE sc.status_id IN (SELECT id FROM co)) AS tagged_collections
    ) AS h`;
  const f = (name: string) => sql.raw(`h.${name}`);
  return db.select({
    statuses: f("statuses"),
    accounts: f("accounts"),
    accountEmojis: f("account_emojis"),
    statusEmojis: f("status_emojis"),
    media: f("media"),
    mentions: f("mentions"),
    tags: f("tags"),
    polls: f("polls"),
    applications: f("applications"),
    cards: f("cards"),
    taggedCollections: f("tagged_collections"),
  }).from(statement).prepare("status_content");
}

function listMap<T>(): { map: Map<string, T[]>; add(key: string, value: T): void } {
  const map = new Map<string, T[]>();
  return {
    map,
    add(key, value) {
      const list = map.get(key);
      if (list) list.push(value);
      else map.set(key, [value]);
    },
  };
}

/**
 * Loads the bundles of `statusIds` and the Account entities of `accountIds`
 * and of those statuses' authors. Missing ids are absent from the result.
 */
export async function loadContent(
  db: Executor,
  urls: MediaUrls,
  statusIds: readonly string[],
  accountIds: readonly string[],
): Promise<{ statuses: StatusBundle[]; accounts: Account[] }> {
  if (statusIds.length === 0 && accountIds.length === 0) return { statuses: [], accounts: [] };
  const origin = urls.origin;
  const [loaded] = await prepared(db, "status_content", () => contentQuery(db))
    .execute({ ids: [...statusIds], accounts: [...accountIds] }) as unknown as Loaded[];

  const accountRows = revive<AccountEntityRow & { userRole: string | null; userSettings: unknown }>(
    accounts,
    loaded.accounts,
  ).map((a) => ({
    account: a,
    role: a.userRole,
    settings: a.userSettings as AccountWithUser["settings"],
  }));
  const accountEmojis = emojisByOwner(urls, emojiRows(loaded.accountEmojis));
  const accountMap = accountEntitiesFromRows(urls, accountRows, accountRows, accountEmojis);

  const media = listMap<MediaAttachmentJson>();
  for (const m of revive<MediaAttachmentRowLike>(mediaAttachments, loaded.media)) {
    media.add(m.statusId!, mediaAttachmentEntity(urls, m));
  }
  const mentions = listMap<MentionJson>();
  for (const m of loaded.mentions ?? []) {
    mentions.add(m.statusId, {
      id: m.id,
      username: m.username,
      url: m.url ?? m.uri,
      acct: acctOf(m),
    });
  }
  const tags = listMap<{ name: string; url: string }>();
  for (const t of loaded.tags ?? []) {
    const name = t.name.toLowerCase();
    tags.add(t.statusId, { name, url: localUris(origin).tag(name) });
  }
  const emojis = emojisByOwner(urls, emojiRows(loaded.statusEmojis));
  const pollMap = new Map(revive<PollRow>(polls, loaded.polls).map((p) => [p.id, p]));
  const apps = new Map((loaded.applications ?? []).map((a) => [a.id, a]));
  const cards = new Map(
    revive<PreviewCardRow & { statusId: string }>(previewCards, loaded.cards)
      .map((c) => [c.statusId, c]),
  );

  const tagged = listMap<string>();
  for (const t of loaded.taggedCollections ?? []) tagged.add(t.statusId, t.collectionId);

  const bundles = revive<StatusRow>(statuses, loaded.statuses).map((row): StatusBundle => {
    const original = row.reblogOfId == null;
    const app = original && row.local && row.applicationId
      ? apps.get(row.applicationId)
      : undefined;
    const card = original ? cards.get(row.id) : undefined;
    return {
      row,
      media: media.map.get(row.id) ?? [],
      mentions: mentions.map.get(row.id) ?? [],
      tags: tags.map.get(row.id) ?? [],
      emojis: emojis.get(row.id) ?? [],
      poll: original && row.pollId ? pollMap.get(row.pollId) ?? null : null,
      application: app ? { name: app.name, website: app.website } : null,
      card: card ? cardEntity(urls, card) : null,
      cardId: card ? card.id : null,
      cardCreator: card?.creatorHandle ?? null,
      taggedCollectionIds: tagged.map.get(row.id) ?? [],
    };
  });
  return { statuses: bundles, accounts: [...accountMap.values()] };
}

type MediaAttachmentRowLike = Parameters<typeof mediaAttachmentEntity>[1];

/** Emoji rows with the id of the status or account using them. */
function emojiRows(rows: unknown) {
  return revive<CustomEmojiRow & { ownerId: string }>(customEmojis, rows).map((emoji) => ({
    ownerId: emoji.ownerId,
    emoji,
  }));
}
