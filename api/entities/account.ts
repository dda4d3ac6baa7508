/**
 * The Account entity (Mastodon 4.5), from `accounts` rows and, for local
 * accounts, their `users` row (role badge, noindex preference).
 *
 * Serialization is pure and batch-friendly: {@link loadAccountEntities}
 * fetches any number of accounts with their users, moved-to targets and
 * custom emoji in three queries at most, then {@link accountEntity} maps rows
 * to JSON.
 */
import { eq, sql } from "drizzle-orm";
import { anyId } from "../../db/queries/any_id.ts";
import { prepared } from "../../db/queries/prepared.ts";
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { shownUsername } from "../../model/handles.ts";
import { DEFAULT_AVATAR_PATH, DEFAULT_HEADER_PATH } from "../routes/static_images.ts";
import { type CustomEmoji, loadAccountEmojis } from "./custom_emoji.ts";
import { mayHaveEmoji } from "../../actors/emoji/shortcodes.ts";
import {
  type FeatureApproval,
  type FeaturePolicy,
  localFeaturePolicy,
} from "../../model/feature_policy.ts";

export type { CustomEmoji } from "./custom_emoji.ts";

export type AccountRow = typeof accounts.$inferSelect;

/** The columns the Account entity reads (loaders may fetch just these). */
export const ACCOUNT_ENTITY_COLUMNS = [
  "id",
  "username",
  "domain",
  "uri",
  "url",
  "actorType",
  "displayName",
  "note",
  "fields",
  "locked",
  "discoverable",
  "indexable",
  "hideCollections",
  "memorial",
  "avatarUrl",
  "headerUrl",
  "avatarDescription",
  "headerDescription",
  "showMedia",
  "showMediaReplies",
  "showFeatured",
  "featurePolicy",
  "followersCount",
  "followingCount",
  "statusesCount",
  "lastStatusAt",
  "movedToAccountId",
  "suspendedAt",
  "sensitizedAt",
  "deletedAt",
  "createdAt",
] as const satisfies readonly (keyof AccountRow)[];

/** What the Account entity needs of an account row. */
export type AccountEntityRow = Pick<AccountRow, typeof ACCOUNT_ENTITY_COLUMNS[number]>;
/** The parts of a user row the entity needs. */
export type AccountUser = Pick<typeof users.$inferSelect, "role" | "settings">;

/** A highlighted role badge. */
export interface AccountRole {
  id: string;
  name: string;
  color: string;
}

/**
 * Marks the entity of an account whose media moderators force sensitive
 * (status.ts reads it). A symbol key: JSON never shows it, the entity cache
 * keeps it with the entity.
 */
export const SENSITIZED: unique symbol = Symbol("sensitized");

/**
 * The account's feature policy as the rules read it (null: none published;
 * absent: nobody may feature it, as for a suspended account). A symbol key,
 * like {@link SENSITIZED}.
 */
export const FEATURE_POLICY: unique symbol = Symbol("featurePolicy");

/** The Account entity. */
export interface Account {
  [SENSITIZED]?: true;
  [FEATURE_POLICY]?: FeaturePolicy | null;
  id: string;
  username: string;
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  group: boolean;
  created_at: string;
  note: string;
  url: string | null;
  uri: string;
  avatar: string;
  avatar_static: string;
  avatar_description: string;
  header: string;
  header_static: string;
  header_description: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  last_status_at: string | null;
  hide_collections: boolean | null;
  show_media: boolean;
  show_media_replies: boolean;
  show_featured: boolean;
  noindex?: boolean;
  emojis: CustomEmoji[];
  roles: AccountRole[];
  /**
   * Who may put the account in a collection (Mastodon 4.6). `current_user`
   * is "denied" as built and cached; feature_approval.ts fills it per viewer.
   */
  feature_approval: FeatureApprovalJson;
  fields: { name: string; value: string; verified_at: string | null }[];
  moved?: Account | null;
  memorial?: boolean;
  suspended?: boolean;
}

/** An Account's `feature_approval`. */
export interface FeatureApprovalJson extends FeaturePolicy {
  current_user: FeatureApproval;
}

/** The feature policy of an account row: its profile's for a local one, its actor's for a remote one. */
export function accountFeaturePolicy(
  account: Pick<AccountEntityRow, "domain" | "discoverable" | "locked" | "featurePolicy">,
): FeaturePolicy | null {
  if (account.domain == null) return localFeaturePolicy(account);
  return (account.featurePolicy as FeaturePolicy | null) ?? null;
}

/**
 * Role badges, with the ids and names of Mastodon's default roles (which are
 * all highlighted). Plain users show none.
 */
export const ROLE_BADGES: Record<string, AccountRole> = {
  moderator: { id: "1", name: "Moderator", color: "" },
  admin: { id: "2", name: "Admin", color: "" },
  owner: { id: "3", name: "Owner", color: "" },
};

/** `user` for local accounts, `user@domain` for remote ones. */
export function acctOf(account: Pick<AccountRow, "username" | "domain">): string {
  const username = shownUsername(account.username);
  return account.domain ? `${username}@${account.domain}` : username;
}

function featureApprovalJson(policy: FeaturePolicy | null): FeatureApprovalJson {
  return {
    automatic: policy ? [...policy.automatic] : [],
    manual: policy ? [...policy.manual] : [],
    current_user: "denied",
  };
}

/** Mastodon rounds account creation down to midnight UTC (privacy). */
function midnight(date: Date): string {
  return `${date.toISOString().slice(0, 10)}T00:00:00.000Z`;
}

/** Suspended and deleted accounts show no profile content. */
function unavailable(account: AccountEntityRow): boolean {
  return account.suspendedAt != null || account.deletedAt != null;
}

/** Whether an account's texts could name a custom emoji (else it has none linked). */
export function accountMayHaveEmoji(account: AccountEntityRow): boolean {
  return mayHaveEmoji([
    account.displayName,
    account.note,
    ...account.fields.flatMap((f) => [f.name, f.value]),
  ]);
}

/**
 * Serializes one account row. `moved` is the already-serialized target of a
 * move, when the account has one, and `emojis` the custom emoji of its
 * profile (see {@link loadAccountEntities}).
 */
export function accountEntity(
  config: Pick<Config, "origin">,
  account: AccountEntityRow,
  user?: AccountUser | null,
  moved?: Account | null,
  emojis: CustomEmoji[] = [],
): Account {
  const gone = unavailable(account);
  const avatar = (!gone && account.avatarUrl) || `${config.origin}${DEFAULT_AVATAR_PATH}`;
  const header = (!gone && account.headerUrl) || `${config.origin}${DEFAULT_HEADER_PATH}`;
  const local = account.domain == null;
  const badge = !gone && user ? ROLE_BADGES[user.role] : undefined;
  const policy = gone ? { automatic: [], manual: [] } : accountFeaturePolicy(account);
  const entity: Account = {
    id: account.id,
    username: shownUsername(account.username),
    acct: acctOf(account),
    display_name: gone ? "" : account.displayName,
    locked: gone ? false : account.locked,
    bot: gone ? false : account.actorType === "Service" || account.actorType === "Application",
    discoverable: gone ? false : account.discoverable,
    indexable: gone ? false : account.indexable,
    group: account.actorType === "Group",
    created_at: midnight(account.createdAt),
    note: gone ? "" : account.note,
    url: account.url ?? account.uri,
    uri: account.uri,
    avatar,
    avatar_static: avatar,
    avatar_description: gone ? "" : account.avatarDescription,
    header,
    header_static: header,
    header_description: gone ? "" : account.headerDescription,
    followers_count: account.followersCount,
    following_count: account.followingCount,
    statuses_count: account.statusesCount,
    last_status_at: account.lastStatusAt ? account.lastStatusAt.toISOString().slice(0, 10) : null,
    hide_collections: account.hideCollections,
    show_media: account.showMedia,
    show_media_replies: account.showMediaReplies,
    show_featured: account.showFeatured,
    emojis: gone ? [] : emojis,
    roles: badge ? [badge] : [],
    feature_approval: featureApprovalJson(policy),
    fields: gone ? [] : account.fields.map((f) => ({
      name: f.name,
      value: f.value,
      verified_at: f.verified_at ?? null,
    })),
  };
  if (local) entity.noindex = user?.settings?.noindex === true;
  if (moved && !gone) entity.moved = moved;
  if (account.memorial) entity.memorial = true;
  if (gone) entity.suspended = true;
  if (account.sensitizedAt) entity[SENSITIZED] = true;
  entity[FEATURE_POLICY] = policy;
  return entity;
}

/** An account row with its user's role and settings (null for remote accounts). */
export interface AccountWithUser {
  account: AccountEntityRow;
  role: string | null;
  settings: AccountUser["settings"] | null;
}

/**
 * Serializes loaded account rows by id: `rows` are the accounts asked for,
 * `movedRows` the targets of their moves, `emojis` their custom emoji.
 * Shared by {@link loadAccountEntities} and the status page loader.
 */
export function accountEntitiesFromRows(
  config: Pick<Config, "origin">,
  rows: readonly AccountWithUser[],
  movedRows: readonly AccountWithUser[],
  emojis: Map<string, CustomEmoji[]>,
): Map<string, Account> {
  const userOf = (r: AccountWithUser): AccountUser | null =>
    r.role != null ? { role: r.role, settings: r.settings ?? {} } : null;
  const movedById = new Map(movedRows.map((r) => [r.account.id, r]));
  return new Map(rows.map((r) => {
    const target = r.account.movedToAccountId
      ? movedById.get(r.account.movedToAccountId)
      : undefined;
    const moved = target
      ? accountEntity(config, target.account, userOf(target), null, emojis.get(target.account.id))
      : undefined;
    return [
      r.account.id,
      accountEntity(config, r.account, userOf(r), moved, emojis.get(r.account.id)),
    ];
  }));
}

/** Accounts by id with their users' role and settings, in one query. */
async function selectWithUsers(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  return await prepared(
    db,
    "account_entities",
    () =>
      db.select({ account: accounts, role: users.role, settings: users.settings })
        .from(accounts).leftJoin(users, eq(users.accountId, accounts.id))
        .where(anyId(accounts.id, sql.placeholder("ids"))).prepare("account_entities"),
  )
    .execute({ ids });
}

/**
 * Loads and serializes accounts by id, in the order given (missing ids are
 * skipped). One query, plus one for the moved-to targets when some account
 * has moved and one for the custom emoji when some profile could use any.
 */
export async function loadAccountEntities(
  db: Executor,
  config: Pick<Config, "origin">,
  ids: readonly string[],
): Promise<Account[]> {
  const rows = await selectWithUsers(db, [...new Set(ids)]);
  const movedIds = rows.map((r) => r.account.movedToAccountId).filter((id): id is string =>
    id != null
  );
  // Moved-to targets are rare: their emoji are asked for without looking at their texts.
  const emojiOwners = [
    ...rows.filter((r) => accountMayHaveEmoji(r.account)).map((r) => r.account.id),
    ...movedIds,
  ];
  const [movedRows, emojis] = await Promise.all([
    selectWithUsers(db, [...new Set(movedIds)]),
    loadAccountEmojis(db, config.origin, [...new Set(emojiOwners)]),
  ]);
  const byId = accountEntitiesFromRows(config, rows, movedRows, emojis);
  return ids.map((id) => byId.get(id)).filter((a): a is Account => a != null);
}
