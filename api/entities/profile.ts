/**
 * The Profile entity (Mastodon 4.6, `/api/v1/profile`): the token owner's
 * profile as they edit it: the raw bio and fields they typed (not the
 * rendered HTML), images null when unset (unlike Account, which shows the
 * default pictures), the image descriptions, the profile switches, and the
 * featured hashtags.
 */
import { eq } from "drizzle-orm";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/connection.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { featuredTagsOf } from "../../db/queries/accounts.ts";
import { resolveSettings } from "../../model/user_settings.ts";
import { type FeaturedTag, featuredTagEntity } from "./featured_tag.ts";
import { noteSourceOf, sourceFields } from "./credential_account.ts";
import { type MediaUrls, profileImageUrl } from "../../actors/media/urls.ts";

/** The Profile entity. */
export interface Profile {
  id: string;
  display_name: string;
  note: string;
  fields: { name: string; value: string; verified_at: string | null }[];
  avatar: string | null;
  avatar_static: string | null;
  avatar_description: string;
  header: string | null;
  header_static: string | null;
  header_description: string;
  locked: boolean;
  bot: boolean;
  hide_collections: boolean | null;
  discoverable: boolean | null;
  indexable: boolean;
  show_media: boolean;
  show_media_replies: boolean;
  show_featured: boolean;
  attribution_domains: string[];
  featured_tags: FeaturedTag[];
}

/** Loads the Profile of a local account (null when it has no user). */
export async function loadProfile(
  database: Database,
  config: Pick<Config, "origin">,
  urls: MediaUrls,
  accountId: string,
): Promise<Profile | null> {
  const [row] = await database.db.select({ account: accounts, settings: users.settings })
    .from(accounts).innerJoin(users, eq(users.accountId, accounts.id))
    .where(eq(accounts.id, accountId)).limit(1);
  if (!row) return null;
  const { account } = row;
  const settings = resolveSettings(row.settings, account);
  const tags = await featuredTagsOf(database, accountId);
  // Null when unset (Account shows the default pictures instead).
  const avatar = profileImageUrl(urls, { id: account.id, kind: "avatar" }, {
    key: account.avatarKey,
    remoteUrl: account.avatarRemoteUrl,
  });
  const header = profileImageUrl(urls, { id: account.id, kind: "header" }, {
    key: account.headerKey,
    remoteUrl: account.headerRemoteUrl,
  });
  return {
    id: account.id,
    display_name: account.displayName,
    note: noteSourceOf(account, row.settings, settings),
    fields: sourceFields(account, settings),
    avatar,
    avatar_static: avatar,
    avatar_description: account.avatarDescription,
    header,
    header_static: header,
    header_description: account.headerDescription,
    locked: account.locked,
    bot: account.actorType === "Service" || account.actorType === "Application",
    hide_collections: account.hideCollections,
    discoverable: account.discoverable,
    indexable: account.indexable,
    show_media: account.showMedia,
    show_media_replies: account.showMediaReplies,
    show_featured: account.showFeatured,
    attribution_domains: account.attributionDomains,
    featured_tags: tags.map((tag) => featuredTagEntity(config.origin, account, tag)),
  };
}
