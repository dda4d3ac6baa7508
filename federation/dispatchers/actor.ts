/**
 * The actor dispatcher: local accounts at `/users/{username}` as Person (or
 * Service for bots), the instance actor at `/actor`, a Tombstone (410) for a
 * deleted account. WebFinger resolves through the handle and alias mappers
 * registered here.
 */
import type { Context, Federation, RequestContext } from "@fedify/fedify";
import { Endpoints, Image, Person, PropertyValue, Service, Tombstone } from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accountCustomEmojis, accounts, customEmojis } from "../../db/schema/mod.ts";
import { mayHaveEmoji } from "../../actors/emoji/shortcodes.ts";
import { emojiTag } from "../objects/emoji.ts";
import { WirePerson, WireService } from "../objects/mastodon_terms.ts";
import { actorCollectionTerms } from "../objects/featured_collections.ts";
import { featuredCollectionsUri } from "../../model/collection_uris.ts";
import { localFeaturePolicy } from "../../model/feature_policy.ts";
import { addNodeTerms, profileTerms } from "../objects/actor_terms.ts";
import { buildInstanceActor, INSTANCE_ACTOR, INSTANCE_ACTOR_PATH } from "./instance_actor.ts";
import { isInstanceActorHandle } from "./instance_actor.ts";
import { getKeyPairs, INSTANCE_KEY_OWNER } from "./keys.ts";
import { signedFetcher } from "./authorized_fetch.ts";
import {
  findLocalAccount,
  findLocalAccountByIdentifier,
  type LocalAccount,
} from "./local_actors.ts";
import { LOCAL_PATHS, localUris } from "../../model/uris.ts";

/** Registers the actor dispatcher, its key pairs and its WebFinger mappers. */
export function registerActorDispatcher(federation: Federation<AppContext>): void {
  federation
    .setActorDispatcher(LOCAL_PATHS.actor, dispatchActor)
    .mapActorAlias(INSTANCE_ACTOR_PATH, INSTANCE_ACTOR)
    .setKeyPairsDispatcher(async (ctx, identifier) => {
      const { database } = ctx.data;
      if (identifier === INSTANCE_ACTOR) return await getKeyPairs(ctx.data, INSTANCE_KEY_OWNER);
      const owner = await ctx.data.core.keyOwners.ownerOf(
        identifier,
        () => findLocalAccountByIdentifier(database.db, identifier),
      );
      return owner ? await getKeyPairs(ctx.data, owner) : [];
    })
    .mapHandle(async (ctx, username) => {
      if (isInstanceActorHandle(ctx.data.config, username)) return INSTANCE_ACTOR;
      // Handles are case-insensitive; identifiers carry the stored spelling.
      const account = await findLocalAccount(ctx.data.database.db, username);
      return account?.username ?? null;
    })
    .mapAlias((ctx, resource) => {
      // The profile URL (`/@user`) as a WebFinger resource, as Mastodon accepts.
      if (resource.origin !== ctx.data.config.origin) return null;
      const match = /^\/@([^/]+)$/.exec(resource.pathname);
      return match ? { username: decodeURIComponent(match[1]) } : null;
    });
}

async function dispatchActor(ctx: RequestContext<AppContext>, identifier: string) {
  if (identifier === INSTANCE_ACTOR) {
    // Served at /actor only; /users/instance.actor would be a second id for it.
    if (ctx.url.pathname === localUris("").actor(INSTANCE_ACTOR)) return null;
    return await buildInstanceActor(ctx);
  }
  const account = await findLocalAccountByIdentifier(ctx.data.database.db, identifier);
  if (!account) return null;
  if (account.deletedAt) {
    return new Tombstone({
      id: ctx.getActorUri(identifier),
      deleted: toInstant(account.deletedAt),
    });
  }
  if (ctx.data.config.authorizedFetch && isFetchOfActor(ctx, identifier)) {
    if (!await signedFetcher(ctx)) return await buildKeyOnlyActor(ctx, account);
  }
  return await buildLocalActor(ctx, account);
}

/**
 * Whether the dispatcher answers a GET of the actor document itself (not
 * WebFinger, nor an inbox checking that its owner exists).
 */
function isFetchOfActor(ctx: RequestContext<AppContext>, identifier: string): boolean {
  const method = ctx.request.method;
  if (method !== "GET" && method !== "HEAD") return false;
  return ctx.url.pathname.replace(/\/$/, "") === ctx.getActorUri(identifier).pathname;
}

/**
 * The actor as an unsigned reader sees it in authorized-fetch mode: what a
 * peer needs to verify our signatures and reach the inbox, nothing of the
 * profile (Mastodon's `restrict_fields_to`: id, type, preferredUsername,
 * inbox, publicKey, endpoints). The Ed25519 key goes with the RSA one.
 */
async function buildKeyOnlyActor(
  ctx: Context<AppContext>,
  account: LocalAccount,
): Promise<Person | Service> {
  const identifier = account.username;
  const keys = await ctx.getActorKeyPairs(identifier);
  const values = {
    id: ctx.getActorUri(identifier),
    preferredUsername: account.username,
    inbox: ctx.getInboxUri(identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    publicKey: keys[0]?.cryptographicKey,
    assertionMethods: keys.map((key) => key.multikey),
  };
  return account.actorType === "Service" ? new Service(values) : new Person(values);
}

/**
 * Builds the ActivityPub document of a local, not deleted account. Needs no
 * request, so deliveries (an Update of the actor) build the same document.
 */
export async function buildLocalActor(
  ctx: Context<AppContext>,
  account: LocalAccount,
): Promise<Person | Service> {
  const identifier = account.username;
  const { origin } = ctx.data.config;
  const urls = ctx.data.mediaUrls;
  const keys = await ctx.getActorKeyPairs(identifier);
  // A suspended account keeps its name, keys and `suspended: true` and shows
  // no profile (Mastodon's ActorSerializer does the same).
  const suspended = account.suspendedAt != null;
  const emojis = !suspended && mayHaveEmoji([
      account.displayName,
      account.note,
      ...account.fields.flatMap((f) => [f.name, f.value]),
    ])
    ? await ctx.data.database.db.select({ emoji: customEmojis }).from(accountCustomEmojis)
      .innerJoin(customEmojis, eq(customEmojis.id, accountCustomEmojis.customEmojiId))
      .where(and(eq(accountCustomEmojis.accountId, account.id), eq(customEmojis.disabled, false)))
    : [];
  const successor = await movedToUri(ctx, account);
  const values = {
    id: ctx.getActorUri(identifier),
    preferredUsername: account.username,
    name: suspended ? null : account.displayName || null,
    summary: suspended ? null : account.note || null,
    url: new URL(localUris(origin).profile(account.username)),
    // Mastodon publishes only the day an account was made, not the time.
    published: toInstant(startOfUtcDay(account.createdAt)),
    inbox: ctx.getInboxUri(identifier),
    outbox: ctx.getOutboxUri(identifier),
    followers: ctx.getFollowersUri(identifier),
    following: ctx.getFollowingUri(identifier),
    featured: ctx.getFeaturedUri(identifier),
    featuredTags: ctx.getFeaturedTagsUri(identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    // publicKey is RSA only (Mastodon reads just one); both go in assertionMethod.
    publicKey: keys[0]?.cryptographicKey,
    assertionMethods: keys.map((key) => key.multikey),
    attachments: (suspended ? [] : account.fields).map((field) =>
      new PropertyValue({ name: field.name, value: field.value })
    ),
    // Custom emoji of the display name, note and fields, as Mastodon tags them.
    tags: emojis.map((e) => emojiTag(urls, e.emoji)).filter((e) => e != null),
    // The descriptions are the images' `name`, as Mastodon 4.7 writes them.
    icon: suspended || !account.avatarKey
      ? null
      : mediaImage(urls.file(account.avatarKey), account.avatarDescription),
    image: suspended || !account.headerKey
      ? null
      : mediaImage(urls.file(account.headerKey), account.headerDescription),
    manuallyApprovesFollowers: suspended ? false : account.locked,
    discoverable: suspended ? false : account.discoverable,
    indexable: suspended ? false : account.indexable,
    memorial: account.memorial || null,
    suspended: account.suspendedAt ? true : null,
    // Accounts that may move here, and where this one moved (actors/accounts/moves.ts).
    aliases: account.alsoKnownAs.map((uri) => new URL(uri)),
    successor,
  };
  const actor = account.actorType === "Service" ? new WireService(values) : new WirePerson(values);
  // Terms Fedify's Person lacks (objects/actor_terms.ts), added by the wire class, beside
  // any other terms of the actor set before.
  addNodeTerms(actor, values.id.href, profileTerms(account, ctx.data.config.domain, suspended));
  if (!suspended) {
    // FEP-7aa9's terms (objects/featured_collections.ts).
    addNodeTerms(
      actor,
      values.id.href,
      actorCollectionTerms({
        actorUri: values.id.href,
        followersUri: values.followers.href,
        featuredCollectionsUri: featuredCollectionsUri(origin, identifier),
        policy: localFeaturePolicy(account),
      }),
    );
  }
  return actor;
}

/** The actor IRI the account moved to (`movedTo`), or null. */
async function movedToUri(ctx: Context<AppContext>, account: LocalAccount): Promise<URL | null> {
  if (!account.movedToAccountId) return null;
  const [target] = await ctx.data.database.db.select({ uri: accounts.uri }).from(accounts)
    .where(eq(accounts.id, account.movedToAccountId)).limit(1);
  return target ? new URL(target.uri) : null;
}

/** An Image for a stored media URL, with its type when the extension tells it, and its description. */
function mediaImage(url: string, description: string): Image {
  const parsed = new URL(url);
  return new Image({
    url: parsed,
    mediaType: mediaTypeOf(parsed.pathname),
    name: description || null,
  });
}

const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
};

function mediaTypeOf(path: string): string | null {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (ext && IMAGE_TYPES[ext]) ?? null;
}

function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

function toInstant(date: Date): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(date.getTime());
}
