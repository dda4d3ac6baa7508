/**
 * Remote accounts: turning a Fedify actor into an `accounts` row and finding
 * (or fetching) the account behind a handle or a URL.
 *
 * Everything from the other server is untrusted: HTML is sanitized to
 * Mastodon's allow-list, plain-text values are reduced to text and bounded,
 * URLs must be http(s), and a row is only ever matched by the actor's own id
 * (Fedify's lookup refuses documents whose id is on another origin than the
 * URL they were fetched from), or by a handle that WebFinger on the handle's
 * domain confirms for that id (handles.ts).
 *
 * Mastodon's profile terms (`manuallyApprovesFollowers`, `PropertyValue`
 * fields, `featured`, `discoverable`, emoji…) are read from the actor's JSON
 * as received (federation/dialects/), whatever its `@context` says; Fedify's
 * parse fills in what that JSON is not at hand for.
 */
import type { Context } from "@fedify/fedify";
import {
  type Actor,
  Application,
  type DocumentLoader,
  Group,
  Image,
  isActor,
  Link,
  Organization,
  PropertyValue,
  Service,
} from "@fedify/vocab";
import { and, eq, isNull, or, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { preparedQuery } from "../../db/queries/prepared.ts";
import { accounts } from "../../db/schema/mod.ts";
import { instanceContext, instanceDocumentLoader, lookupRemote } from "../fetch/lookup.ts";
import { scheduleFeaturedSync } from "./featured_schedule.ts";
import { sanitizeHtml } from "../../actors/formatting/sanitize_html.ts";
import { htmlToText } from "../../actors/formatting/html_to_text.ts";
import { readEmojiTags } from "../objects/emoji.ts";
import { MAX_EMOJIS_PER_OBJECT } from "../../actors/emoji/shortcodes.ts";
import { linkRemoteEmojis, type RemoteEmojiInput } from "../../actors/emoji/links.ts";
import { replacedProfileCopies } from "../../actors/media/remote_cache/replaced.ts";
import { webUrl } from "../fetch/trust.ts";
import { actorKeys } from "./actor_keys.ts";
import { invalidateHandle, scheduleAccountRefresh } from "./handle_takeover.ts";
import { type ActorTerms, isJson, readActorTerms } from "../dialects/terms.ts";
import { actorCollectionColumns } from "./actor_collections.ts";
import { receivedJson } from "../dialects/received.ts";
import {
  confirmHandle,
  type Handle,
  logUnresolved,
  resolveHandle,
  sameHandle,
  statedHandle,
  WEBFINGER_RECHECK_MS,
} from "./handles.ts";
import type { FetchBudget } from "../fetch/budget.ts";
import { requestCopies } from "../../actors/media/remote_cache/at_receipt.ts";
import {
  domainOfUrl,
  federationRefused,
  mediaRejected,
} from "../../actors/moderation/domain_rules.ts";

const logger = getLogger(["rookery", "federation", "remote-accounts"]);

/** An accounts row. */
export type AccountRow = typeof accounts.$inferSelect;

/** Stored remote accounts older than this are fetched again when resolved. */
export const REFRESH_AFTER_MS = 24 * 60 * 60 * 1000;

/** Mastodon's limits on what it keeps of a remote profile. */
const LIMITS = {
  displayName: 100,
  fieldName: 255,
  fieldValue: 2_047,
  fields: 16,
  url: 2_048,
  description: 1_500,
};

function isFedifyContext(ctx: AppContext | Context<AppContext>): ctx is Context<AppContext> {
  return "getActorUri" in ctx;
}

function appOf(ctx: AppContext | Context<AppContext>): AppContext {
  return isFedifyContext(ctx) ? ctx.data : ctx;
}

/**
 * The day an actor says its account was created (`published`), as Mastodon
 * takes it for a remote account's created_at: the UTC date, at midnight (the
 * precision Mastodon and Rookery publish). Null when absent, before 1970
 * (nonsense) or in the future (the age it implies would be a lie), so the
 * row keeps the time we first saw the actor.
 */
export function publishedDay(
  published: { epochMilliseconds: number } | null | undefined,
  now = Date.now(),
): Date | null {
  const ms = published?.epochMilliseconds;
  if (ms == null || !Number.isFinite(ms) || ms < 0 || ms > now) return null;
  const day = new Date(ms);
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
}

/** The URL of an Image (or Link) property, without fetching anything. */
function imageUrl(image: Image | null): string | null {
  if (!image) return null;
  const url = image.url;
  if (url instanceof URL) return webUrl(url);
  if (url instanceof Link) return webUrl(url.href);
  return null;
}

function actorTypeOf(actor: Actor): string {
  if (actor instanceof Service) return "Service";
  if (actor instanceof Application) return "Application";
  if (actor instanceof Group) return "Group";
  if (actor instanceof Organization) return "Organization";
  return "Person";
}

/** A profile field as stored: plain name, sanitized HTML value; null when nameless. */
function fieldOf(name: string | undefined, value: string | undefined) {
  const plain = htmlToText(name, { oneLine: true, maxLength: LIMITS.fieldName });
  if (!plain) return null;
  const html = sanitizeHtml(value?.slice(0, LIMITS.fieldValue * 4));
  return { name: plain, value: html, verified_at: null };
}

/** How many `alsoKnownAs` entries of a remote actor are kept (Mastodon keeps them all; bounded here). */
const MAX_ALIASES = 20;

/**
 * The actor's `alsoKnownAs` (Fedify's `aliases`) as http(s) IRIs, bounded:
 * what a Move to this actor is checked against (federation/inbox/move.ts).
 */
export function actorAliases(actor: Actor): string[] {
  const out: string[] = [];
  for (const alias of actor.aliasIds) {
    const url = webUrl(alias);
    if (url && url.length <= LIMITS.url && !out.includes(url)) out.push(url);
    if (out.length >= MAX_ALIASES) break;
  }
  return out;
}

/**
 * The columns of an accounts row that a remote actor document determines;
 * `terms` are what its JSON as received says (federation/dialects/terms.ts).
 */
export async function actorColumns(
  actor: Actor,
  documentLoader?: DocumentLoader,
  terms: ActorTerms | null = null,
): Promise<Omit<typeof accounts.$inferInsert, "id">> {
  const id = actor.id!;
  const options = { documentLoader, suppressError: true };
  const fields: AccountRow["fields"] = [];
  for (const raw of terms?.fields ?? []) {
    const field = fieldOf(raw.name, raw.value);
    if (field && fields.length < LIMITS.fields) fields.push(field);
  }
  // Embedded PropertyValues only: a field that needs a fetch is not worth one.
  for await (const item of fields.length ? [] : actor.getAttachments(options)) {
    if (fields.length >= LIMITS.fields) break;
    if (!(item instanceof PropertyValue)) continue;
    const field = fieldOf(item.name?.toString(), item.value?.toString());
    if (field) fields.push(field);
  }
  const [icon, image] = await Promise.all([
    actor.getIcon(options).catch(() => null),
    actor.getImage(options).catch(() => null),
  ]);
  const url = actor.url instanceof Link ? actor.url.href : actor.url;
  const createdAt = publishedDay(actor.published);
  const username =
    htmlToText(actor.preferredUsername?.toString(), { oneLine: true, maxLength: 255 }) ||
    decodeURIComponent(id.pathname.split("/").filter(Boolean).pop() ?? "") || id.host;
  return {
    username: username.replace(/[\s@]/g, "_"),
    // `example.com.` (the fully qualified spelling) is `example.com`, as a
    // domain block names it (actors/relationships/domain_blocks.ts normalizeDomain).
    domain: id.hostname.replace(/\.$/, "") + (id.port ? `:${id.port}` : ""),
    uri: id.href,
    url: webUrl(url ?? null),
    actorType: actorTypeOf(actor),
    displayName: htmlToText(actor.name?.toString(), {
      oneLine: true,
      maxLength: LIMITS.displayName,
    }),
    note: sanitizeHtml(actor.summary?.toString()),
    fields,
    locked: terms?.manuallyApprovesFollowers ?? actor.manuallyApprovesFollowers ?? false,
    discoverable: terms?.discoverable ?? actor.discoverable ?? false,
    indexable: terms?.indexable ?? actor.indexable ?? false,
    memorial: terms?.memorial ?? actor.memorial ?? false,
    attributionDomains: terms?.attributionDomains ?? [],
    avatarRemoteUrl: imageUrl(icon),
    headerRemoteUrl: imageUrl(image),
    // Mastodon 4.6/4.7's profile terms; an actor without them shows everything.
    avatarDescription: htmlToText(terms?.iconName ?? icon?.name?.toString(), {
      oneLine: true,
      maxLength: LIMITS.description,
    }),
    headerDescription: htmlToText(terms?.imageName ?? image?.name?.toString(), {
      oneLine: true,
      maxLength: LIMITS.description,
    }),
    showFeatured: terms?.showFeatured ?? true,
    showMedia: terms?.showMedia ?? true,
    showMediaReplies: terms?.showRepliesInMedia ?? true,
    inboxUrl: webUrl(actor.inboxId),
    sharedInboxUrl: webUrl(actor.endpoints?.sharedInbox),
    outboxUrl: webUrl(actor.outboxId),
    followersUrl: webUrl(actor.followersId),
    followingUrl: webUrl(actor.followingId),
    featuredUrl: terms?.featured ?? webUrl(actor.featuredId),
    featuredTagsUrl: terms?.featuredTags ?? webUrl(actor.featuredTagsId),
    // `alsoKnownAs` as received (no context defines it for plain-context peers), else Fedify's.
    alsoKnownAs: terms?.alsoKnownAs.length ? terms.alsoKnownAs : actorAliases(actor),
    ...await actorKeys(actor, documentLoader),
    suspendedAt: actor.suspended ? new Date() : null,
    suspensionOrigin: actor.suspended ? "remote" : null,
    // A document without `movedTo` ends a redirect (Mastodon's "Cancel redirect"
    // sends such an Update); a `Move` is what sets one (inbox_move.ts).
    ...(terms && !terms.movedTo ? { movedToAccountId: null } : {}),
    // Without a usable `published`, a new row keeps its default (now) and a stored one its own.
    ...(createdAt ? { createdAt } : {}),
    fetchedAt: new Date(),
    updatedAt: new Date(),
  };
}

/**
 * Stores or refreshes a remote actor as an accounts row and returns it.
 * Matched by actor id. Its handle is the one WebFinger confirms (handles.ts),
 * asked when the row is new, when the actor's name changed, or when the
 * last check is a day old; without a confirmation a stored row keeps its
 * handle and a new one takes `preferredUsername@actor host`. A confirmed
 * handle another stored actor holds is taken from it (handle_takeover.ts). A stored
 * account with the same handle but another id (the remote account was
 * re-created) takes the new id and key only when WebFinger on the handle's
 * domain now points to the new id; otherwise the actor is not stored
 * (null). Local actors are never overwritten: their row is returned as it is.
 * What the actor only links to is fetched within `budget` when one is given.
 */
export async function upsertRemoteActor(
  ctx: AppContext | Context<AppContext>,
  actor: Actor,
  budget?: FetchBudget,
): Promise<AccountRow | null> {
  if (!actor.id) return null;
  const app = appOf(ctx);
  if (actor.id.origin === new URL(app.config.origin).origin) {
    const [local] = await app.database.db.select().from(accounts)
      .where(eq(accounts.uri, actor.id.href)).limit(1);
    return local ?? null;
  }
  // What the actor only links to (a key, an icon) is fetched signed by the
  // instance actor, as every fetch of ours: peers in authorized-fetch mode
  // refuse unsigned GETs (and without a loader Fedify would use its own).
  const loader = await instanceDocumentLoader(isFedifyContext(ctx) ? ctx : instanceContext(app));
  const json = await receivedJson(actor);
  const terms = isJson(json) ? readActorTerms(json) : null;
  const columns = await actorColumns(actor, budget ? budget.wrap(loader) : loader, terms);
  Object.assign(
    columns,
    actorCollectionColumns(json, {
      uri: columns.uri,
      followersUrl: columns.followersUrl ?? null,
      followingUrl: columns.followingUrl ?? null,
    }),
  );
  // A server we do not federate with gets no account here; one whose media
  // is rejected keeps no avatar, header or emoji (actors/moderation/domain_rules.ts).
  if (await federationRefused(app, columns.domain)) return null;
  const rejectMedia = await mediaRejected(app, columns.domain);
  if (rejectMedia) Object.assign(columns, { avatarRemoteUrl: null, headerRemoteUrl: null });
  const emojis = rejectMedia ? [] : mergeEmojis(terms?.emojis ?? [], await readEmojiTags(actor));
  // WebFinger is asked before the transaction opens: no row lock waits on the network.
  const naming = await decideHandle(
    app,
    columns,
    statedHandle(json),
  );
  const db = app.database.db;
  for (let attempt = 0;; attempt++) {
    try {
      const written = await db.transaction((tx) => writeRemoteAccount(tx, columns, naming, emojis));
      if (written.tookHandleOf) await scheduleAccountRefresh(app, written.tookHandleOf);
      return written.row;
    } catch (error) {
      // Two deliveries about one new actor at once: the second sees the first's row.
      if (attempt === 0 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}

/** Emoji of the raw JSON first, then Fedify's, one per shortcode. */
function mergeEmojis(first: RemoteEmojiInput[], second: RemoteEmojiInput[]) {
  const all = [...first];
  for (const e of second) if (!all.some((a) => a.shortcode === e.shortcode)) all.push(e);
  return all.slice(0, MAX_EMOJIS_PER_OBJECT);
}

/** The handle a write gives the actor's row, decided before the transaction. */
interface Naming {
  handle: Handle;
  /** WebFinger on the handle's domain has just pointed it to this actor. */
  confirmed: boolean;
  /** When WebFinger was asked (to store on the row); null when it was not. */
  checkedAt: Date | null;
}

/** The handle of the actor whose document gave `columns` (see upsertRemoteActor). */
async function decideHandle(
  app: AppContext,
  columns: Omit<typeof accounts.$inferInsert, "id">,
  stated: Handle | null,
): Promise<Naming> {
  const suggested = { username: columns.username, domain: columns.domain! };
  const [stored] = await app.database.db.select({
    username: accounts.username,
    domain: accounts.domain,
    lastWebfingeredAt: accounts.lastWebfingeredAt,
  }).from(accounts).where(eq(accounts.uri, columns.uri)).limit(1);
  const known = stored?.domain != null
    ? { username: stored.username, domain: stored.domain }
    : null;
  if (known) {
    const checked = stored.lastWebfingeredAt?.getTime();
    const fresh = checked != null && Date.now() - checked < WEBFINGER_RECHECK_MS;
    const renamed = stated
      ? !sameHandle(known, stated)
      : known.username.toLowerCase() !== suggested.username.toLowerCase();
    if (fresh && !renamed) return { handle: known, confirmed: false, checkedAt: null };
  }
  const checkedAt = new Date();
  const confirmed = await confirmHandle(app, columns.uri, suggested, stated);
  if (confirmed) return { handle: confirmed, confirmed: true, checkedAt };
  return { handle: known ?? suggested, confirmed: false, checkedAt };
}

/** What a write did: the row (null when not stored), and whose handle it took over. */
interface Written {
  row: AccountRow | null;
  tookHandleOf?: string;
}

async function writeRemoteAccount(
  tx: Executor,
  columns: Omit<typeof accounts.$inferInsert, "id">,
  naming: Naming,
  emojis: RemoteEmojiInput[],
): Promise<Written> {
  const { handle, confirmed, checkedAt } = naming;
  const [byUri] = await tx.select().from(accounts).where(eq(accounts.uri, columns.uri)).limit(1);
  const [byHandle] = await tx.select().from(accounts).where(and(
    sql`lower(${accounts.username}) = ${handle.username.toLowerCase()}`,
    sql`lower(${accounts.domain}) = ${handle.domain.toLowerCase()}`,
  )).limit(1);
  let existing = byUri;
  if (!existing && byHandle) {
    // Another actor holds the handle: this one takes the row (and its
    // followers) only with WebFinger's word that the handle is now its.
    if (!confirmed) {
      logger.warn("Not stored: {uri} claims the handle {username}@{domain} of {other}", {
        uri: columns.uri,
        username: handle.username,
        domain: handle.domain,
        other: byHandle.uri,
      });
      return { row: null };
    }
    existing = byHandle;
  }
  const {
    suspendedAt,
    suspensionOrigin: _o,
    publicKeyPem,
    publicKeyId,
    publicKeys,
    username: _u,
    domain: _d,
    ...rest
  } = columns;
  const checked = checkedAt ? { lastWebfingeredAt: checkedAt } : {};
  if (existing) {
    if (existing.domain == null) return { row: existing };
    // A handle another row holds is taken from it only on WebFinger's word
    // that it is now this actor's (handle_takeover.ts); else the row keeps its own.
    const heldByOther = byHandle != null && byHandle.id !== existing.id;
    if (heldByOther && confirmed) await invalidateHandle(tx, byHandle.id);
    const renamed = heldByOther && !confirmed ? {} : handle;
    const [row] = await tx.update(accounts).set({
      ...rest,
      ...await replacedProfileCopies(tx, existing, rest),
      ...renamed,
      ...checked,
      // A document without keys (a stripped Update) does not erase those we know.
      ...(publicKeys?.length ? { publicKeys, publicKeyPem, publicKeyId } : {}),
      // Keep the first suspension time; lift it when the actor is no longer
      // suspended, unless our own moderators suspended it (their decision stands).
      ...(existing.suspensionOrigin === "local" ? {} : {
        suspendedAt: suspendedAt ? existing.suspendedAt ?? suspendedAt : null,
        suspensionOrigin: suspendedAt ? existing.suspensionOrigin ?? "remote" : null,
      }),
    }).where(eq(accounts.id, existing.id)).returning();
    await linkProfileEmojis(tx, row, emojis, true);
    return { row, tookHandleOf: heldByOther && confirmed ? byHandle.id : undefined };
  }
  const [row] = await tx.insert(accounts)
    .values({ id: newId(), ...columns, ...handle, ...checked }).returning();
  await linkProfileEmojis(tx, row, emojis, false);
  return { row };
}

/** Links the emoji the profile's display name, note and fields use (Emoji tags of the actor). */
async function linkProfileEmojis(
  tx: Executor,
  row: AccountRow,
  emojis: RemoteEmojiInput[],
  replace: boolean,
): Promise<void> {
  if (!row.domain || (!replace && emojis.length === 0)) return;
  const texts = [row.displayName, row.note, ...row.fields.flatMap((f) => [f.name, f.value])];
  await linkRemoteEmojis(tx, { accountId: row.id }, row.domain, emojis, texts, { replace });
  // Their images are copied now, not when first shown.
  await requestCopies(tx, { accountId: row.id }, { emojis });
}

/** Whether `error` (or its cause) is PostgreSQL's unique violation (two writers of one new row). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: any = error; e; e = e.cause) if (e.code === "23505") return true;
  return false;
}

/** What a resolve query names: a handle or an actor/profile URL. */
type Query = { kind: "handle"; username: string; domain: string } | { kind: "url"; url: string };

/** Parses `user@host`, `@user@host`, `acct:user@host` or an http(s) URL; null otherwise. */
export function parseAccountQuery(query: string): Query | null {
  const q = query.trim();
  if (q.length === 0 || q.length > LIMITS.url) return null;
  if (/^https?:\/\//i.test(q)) {
    const url = webUrl(q);
    return url ? { kind: "url", url } : null;
  }
  const match = /^(?:acct:)?@?([^@\s/]+)@([^@\s/?#]+)$/i.exec(q);
  if (!match) return null;
  const domain = match[2].toLowerCase();
  try {
    // The host must be a valid host (with an optional port).
    if (new URL(`https://${domain}/`).host !== domain) return null;
  } catch {
    return null;
  }
  return { kind: "handle", username: match[1], domain };
}

function isFresh(row: AccountRow): boolean {
  return row.domain == null ||
    (row.fetchedAt != null && Date.now() - row.fetchedAt.getTime() < REFRESH_AFTER_MS);
}

/** A stored account named by the query (local or remote), without fetching. */
export async function findStoredAccount(
  app: AppContext,
  query: string,
): Promise<AccountRow | null> {
  const parsed = parseAccountQuery(query);
  if (!parsed) return null;
  const db = app.database.db;
  if (parsed.kind === "url") {
    const [row] = await db.select().from(accounts)
      .where(or(eq(accounts.uri, parsed.url), eq(accounts.url, parsed.url))).limit(1);
    return row ?? null;
  }
  const local = parsed.domain === new URL(app.config.origin).host.toLowerCase();
  const [row] = await db.select().from(accounts).where(and(
    sql`lower(${accounts.username}) = ${parsed.username.toLowerCase()}`,
    local ? isNull(accounts.domain) : sql`lower(${accounts.domain}) = ${parsed.domain}`,
  )).limit(1);
  return row ?? null;
}

/**
 * Resolves `user@host`, `@user@host`, `acct:user@host` or an actor/profile
 * URL to an accounts row: the stored one while it is fresh (fetched less than
 * a day ago; local accounts always are), otherwise through WebFinger and a
 * signed fetch by the instance actor, then stored. Returns null when nothing
 * can be found; never throws for bad input or unreachable servers.
 */
export async function resolveRemoteAccount(
  ctx: AppContext,
  query: string,
): Promise<AccountRow | null> {
  const parsed = parseAccountQuery(query);
  if (!parsed) return null;
  const stored = await findStoredAccount(ctx, query);
  if (stored && (isFresh(stored) || stored.deletedAt)) return stored;
  if (!stored && parsed.kind === "handle") {
    if (parsed.domain === new URL(ctx.config.origin).host.toLowerCase()) return null;
  }
  const fedCtx = instanceContext(ctx);
  // A handle goes through our WebFinger client (handles.ts), which speaks
  // http to peers when our own ORIGIN is http; Fedify's is https only.
  let target = stored?.uri ?? (parsed.kind === "url" ? parsed.url : null);
  if (!target && parsed.kind === "handle") {
    const resolved = await resolveHandle(ctx, parsed);
    if ("failure" in resolved) {
      logUnresolved(query, resolved.failure);
      return stored;
    }
    target = resolved.uri;
  }
  if (!target) return stored;
  const domain = domainOfUrl(target);
  if (!stored && domain && await federationRefused(ctx, domain)) {
    logUnresolved(query, { reason: "blocked", detail: `${target} is on ${domain}` });
    return null;
  }
  const object = await lookupRemote(fedCtx, target);
  if (!isActor(object)) {
    if (!stored) {
      logUnresolved(query, {
        reason: object ? "not_an_actor" : "actor_unavailable",
        detail: object
          ? `${target} is a ${object.constructor.name}`
          : `${target} (see the lookup log)`,
      });
    }
    return stored;
  }
  return await storeFetchedActor(ctx, object) ?? stored;
}

/**
 * Stores (or refreshes) an actor fetched for a user's query, and schedules
 * the sync of its pins. Null when it cannot be stored; never throws.
 */
export async function storeFetchedActor(
  ctx: AppContext,
  object: Parameters<typeof upsertRemoteActor>[1],
): Promise<AccountRow | null> {
  try {
    const row = await upsertRemoteActor(ctx, object);
    // Stored or refreshed: its pins follow, in the background (featured_sync.ts).
    if (row?.domain != null) await scheduleFeaturedSync(ctx, row.id);
    return row ?? null;
  } catch (error) {
    logger.warn("Could not store the actor {uri}: {error}", { uri: object.id?.href, error });
    return null;
  }
}

/**
 * The stored account of an actor IRI, fetching and storing it when unknown
 * (inbox listeners use this for the activity's actor). Null when it cannot
 * be fetched (or `budget`, when given, is spent).
 */
export async function accountForActorUri(
  ctx: Context<AppContext>,
  uri: URL,
  budget?: FetchBudget,
): Promise<AccountRow | null> {
  // Built once (db/queries/prepared.ts): every inbound activity asks this,
  // a Create twice, and drizzle's building of all the accounts columns cost
  // more than the lookup.
  const [row] = await preparedQuery(
    ctx.data.database.db,
    "account_by_uri",
    (db) => db.select().from(accounts).where(eq(accounts.uri, sql.placeholder("uri"))).limit(1),
  ).execute({ uri: uri.href });
  if (row) return row;
  const object = await lookupRemote(ctx, uri.href, budget);
  if (!isActor(object) || object.id?.href !== uri.href) return null;
  const stored = await upsertRemoteActor(ctx, object, budget);
  // A new actor: its pins follow, in the background (featured_sync.ts).
  if (stored?.domain != null) await scheduleFeaturedSync(ctx.data, stored.id);
  return stored;
}
