/**
 * The CredentialAccount entity (verify_credentials, update_credentials and
 * the profile image deletions): the Account of the token's owner, plus the
 * plain-text `source` of what they typed and their `role`.
 */
import { eq, sql } from "drizzle-orm";
import { preparedQuery } from "../../db/queries/prepared.ts";
import type { MediaUrls } from "../../actors/media/urls.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts, followRequests, roleSettings, users } from "../../db/schema/mod.ts";
import { DEFAULT_ROLE_SETTINGS } from "../../actors/roles/role_settings.ts";
import { htmlToText } from "../../actors/formatting/html_to_text.ts";
import { type ResolvedSettings, resolveSettings } from "../../model/user_settings.ts";
import {
  type Account,
  accountEntity,
  accountMayHaveEmoji,
  type AccountRow,
  type CustomEmoji,
  loadAccountEntities,
  ROLE_BADGES,
} from "./account.ts";
import { loadAccountEmojis } from "./custom_emoji.ts";
import { rolePermissions } from "../../model/permissions.ts";

/** The Role entity of the token's owner. */
export interface Role {
  id: string;
  name: string;
  /** Bitmask of Mastodon's UserRole flags, as a decimal string. */
  permissions: string;
  color: string;
  highlighted: boolean;
  /** How many collections the role may make (Mastodon 4.6). */
  collection_limit: number;
}

/** The `source` member: what the user typed and their posting defaults. */
export interface AccountSource {
  privacy: string;
  sensitive: boolean;
  language: string;
  note: string;
  fields: { name: string; value: string; verified_at: string | null }[];
  follow_requests_count: number;
  hide_collections: boolean;
  discoverable: boolean;
  indexable: boolean;
  attribution_domains: string[];
  quote_policy: string;
}

export interface CredentialAccount extends Account {
  source: AccountSource;
  role: Role;
}

/** A role's run-time settings, as the Role entity shows them. */
export interface RoleEntitySettings {
  collectionLimit: number;
  emailSubscriptions: boolean;
}

/** The Role entity of a user's role (plain users get Mastodon's "everyone" role). */
export function roleEntity(
  role: string,
  settings: RoleEntitySettings = { collectionLimit: 10, emailSubscriptions: false },
): Role {
  const badge = ROLE_BADGES[role];
  const grants = { emailSubscriptions: settings.emailSubscriptions };
  return {
    id: badge?.id ?? "-99",
    name: badge?.name ?? "",
    permissions: rolePermissions(badge ? role : "user", grants),
    color: badge?.color ?? "",
    highlighted: badge != null,
    collection_limit: settings.collectionLimit,
  };
}

/**
 * The typed field sources; accounts whose fields were set elsewhere (the
 * admin command line, older rows) fall back to the text of their HTML.
 */
export function sourceFields(account: Pick<AccountRow, "fields">, settings: ResolvedSettings) {
  const typed = settings.fieldsSource.length === account.fields.length
    ? settings.fieldsSource
    : null;
  return account.fields.map((field, i) => ({
    name: field.name,
    value: typed?.[i]?.value ?? htmlToText(field.value),
    verified_at: field.verified_at ?? null,
  }));
}

/** Serializes the owner's account with its source and role. */
export function credentialAccountEntity(
  urls: MediaUrls,
  account: AccountRow,
  user: { role: string; settings: Record<string, unknown>; roleSettings?: RoleEntitySettings },
  followRequestsCount: number,
  emojis: CustomEmoji[] = [],
  moved: Account | null = null,
): CredentialAccount {
  const settings = resolveSettings(user.settings, account);
  const entity = accountEntity(urls, account, user, moved, emojis);
  return {
    ...entity,
    // One may always feature oneself.
    feature_approval: { ...entity.feature_approval, current_user: "automatic" },
    source: {
      privacy: settings.defaultPrivacy,
      sensitive: settings.defaultSensitive,
      language: settings.defaultLanguage ?? "",
      note: noteSourceOf(account, user.settings, settings),
      fields: sourceFields(account, settings),
      follow_requests_count: followRequestsCount,
      hide_collections: account.hideCollections,
      discoverable: account.discoverable,
      indexable: account.indexable,
      attribution_domains: account.attributionDomains,
      quote_policy: settings.defaultQuotePolicy,
    },
    role: roleEntity(user.role, user.roleSettings),
  };
}

/** What the user typed as its bio; older rows fall back to the text of their HTML. */
export function noteSourceOf(
  account: Pick<AccountRow, "note">,
  stored: Record<string, unknown> | null | undefined,
  settings: ResolvedSettings,
): string {
  return stored?.note_source != null ? settings.noteSource : htmlToText(account.note);
}

/** Mastodon counts at most this many pending requests here (`limit(40).count`). */
const FOLLOW_REQUESTS_COUNT_LIMIT = 40;

/** Loads and serializes the CredentialAccount of a local account (one or two queries). */
export async function loadCredentialAccount(
  db: Executor,
  urls: MediaUrls,
  accountId: string,
): Promise<CredentialAccount | null> {
  // Built once (db/queries/prepared.ts): building its SQL text on every
  // call was half of verify_credentials' CPU on PostgreSQL. The pending
  // follow requests are counted in the same round trip.
  const [row] = await preparedQuery(
    db,
    "credential_account",
    (db) =>
      db.select({
        account: accounts,
        role: users.role,
        settings: users.settings,
        collectionLimit: roleSettings.collectionLimit,
        emailSubscriptions: roleSettings.emailSubscriptions,
        pending: sql<number>`(SELECT count(*) FROM (SELECT 1 FROM ${followRequests}
          WHERE ${followRequests.targetAccountId} = ${accounts.id}
          LIMIT ${sql.raw(String(FOLLOW_REQUESTS_COUNT_LIMIT))}) pending)`.mapWith(Number),
      })
        .from(accounts).innerJoin(users, eq(users.accountId, accounts.id))
        .leftJoin(roleSettings, eq(roleSettings.role, users.role))
        .where(eq(accounts.id, sql.placeholder("id"))).limit(1),
  ).execute({ id: accountId });
  if (!row) return null;
  const emojis = accountMayHaveEmoji(row.account)
    ? (await loadAccountEmojis(db, urls, [accountId])).get(accountId)
    : undefined;
  return credentialAccountEntity(
    urls,
    row.account,
    {
      role: row.role,
      settings: row.settings ?? {},
      roleSettings: {
        collectionLimit: row.collectionLimit ?? DEFAULT_ROLE_SETTINGS.collectionLimit,
        emailSubscriptions: row.emailSubscriptions ?? false,
      },
    },
    row.pending,
    emojis,
    // A moved account shows where it went, as every Account does (actors/accounts/moves.ts).
    row.account.movedToAccountId
      ? (await loadAccountEntities(db, urls, [row.account.movedToAccountId]))[0] ?? null
      : null,
  );
}
