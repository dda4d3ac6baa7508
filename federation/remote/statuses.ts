/**
 * Remote statuses: storing one that arrived (Create) or that a reply, boost
 * or quote refers to, through the same `createStatus` command the API uses.
 *
 * {@link resolveRemoteStatus} finds a status by IRI, fetching it with a
 * signed GET (the instance actor's key, so servers in secure mode answer)
 * when we do not have it. Parents and quoted posts are followed the same way
 * up to {@link MAX_DEPTH} levels, so a loop of replies ends. Every fetch
 * (statuses and their authors) is taken from the caller's
 * {@link FetchBudget}: a parent or quoted post the budget refused is left
 * out of the status and recorded with it (`missingLinks`), and a job fetches
 * and links it later (federation/remote/status_links.ts).
 *
 * Trust: an object is stored only when its id and its author live on the
 * same server (Fedify's lookup already refuses a document whose id is on
 * another origin than the URL it came from), and its author is a remote
 * actor we can fetch.
 */
import type { Context } from "@fedify/fedify";
import type { Object as APObject } from "@fedify/vocab";
import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { preparedQuery } from "../../db/queries/prepared.ts";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import {
  createStatus,
  type RemoteStatusInput,
  type StatusRow,
} from "../../actors/statuses/create.ts";
import { StatusError } from "../../actors/statuses/errors.ts";
import { ReplyForbiddenError } from "../../actors/statuses/held_replies.ts";
import { refuseRemoteInteraction } from "../../actors/interactions/remote_requests.ts";
import { claimOf, remotePolicyOf } from "../objects/interaction_policy.ts";
import { type ApprovalVerdict, judgeApproval } from "./authorizations.ts";
import { lookupRemote } from "../fetch/lookup.ts";
import { accountForActorUri, type AccountRow, isUniqueViolation } from "./accounts.ts";
import { isStatusObject, type ParsedStatus, parseStatusObject } from "../objects/remote_status.ts";
import { sameOrigin } from "../fetch/trust.ts";
import type { FetchBudget } from "../fetch/budget.ts";
import { type MissingLinks, NOTHING_MISSING } from "../../actors/outbox/status_links.ts";
import { mediaRejected } from "../../actors/moderation/domain_rules.ts";
import { receivedJson } from "../dialects/received.ts";
import { statusOrEarlyDelete } from "../inbox/early_deletes.ts";

const logger = getLogger(["rookery", "federation", "statuses"]);

/** How many levels of parents (or quoted posts) are fetched for one status. */
export const MAX_DEPTH = 5;

/** The stored status with this IRI (or URL), deleted ones excluded. */
export async function findStatusByUri(app: AppContext, uri: string): Promise<StatusRow | null> {
  // Built once (db/queries/prepared.ts): every inbound status asks this.
  const [row] = await preparedQuery(
    app.database.db,
    "status_by_uri",
    (db) =>
      db.select().from(statuses)
        .where(and(eq(statuses.uri, sql.placeholder("uri")), isNull(statuses.deletedAt))).limit(1),
  ).execute({ uri });
  return row ?? null;
}

/**
 * The stored status with IRI `uri`, fetched and stored when unknown, within
 * `budget`. Local IRIs are never fetched. Returns null when it cannot be
 * found, fetched (the budget is spent), trusted or stored; never throws for
 * what other servers send.
 */
export async function resolveRemoteStatus(
  ctx: Context<AppContext>,
  uri: string,
  budget: FetchBudget,
  depth = 0,
): Promise<StatusRow | null> {
  const known = await findStatusByUri(ctx.data, uri);
  if (known) return known;
  if (sameOrigin(uri, ctx.data.config.origin) || depth > MAX_DEPTH) return null;
  const object = await lookupRemote(ctx, uri, budget);
  if (!isStatusObject(object) || !object.id) return null;
  if (object.id.href !== uri) {
    const again = await findStatusByUri(ctx.data, object.id.href);
    if (again) return again;
  }
  return await storeRemoteStatus(ctx, object, { depth, raw: await rawJson(object), budget });
}

/** The JSON an object arrived as (federation/dialects/received.ts). */
export async function rawJson(object: APObject): Promise<unknown> {
  return await receivedJson(object);
}

/** What {@link storeRemoteStatus} needs besides the object. */
export interface StoreOptions {
  /** Levels of parents already followed. */
  depth: number;
  /** The object's JSON as received (what Fedify drops is read from it: federation/dialects/). */
  raw?: unknown;
  /** The actor that delivered it: the object must be theirs. */
  expectedActor?: string;
  /** That actor's stored account, when the caller has it (saves looking it up again). */
  sender?: AccountRow;
  /** What the status, its author, parents and quoted posts may still fetch. */
  budget: FetchBudget;
  /**
   * Delivered as a plain Create (not a polite ReplyRequest, whose answer
   * its caller sends): a reply our policy forbids is refused with a Reject.
   */
  impolite?: boolean;
  /**
   * Not stored when it was refused as an interaction before (a rejected
   * reply): asked in the query that looks the IRI up.
   */
  dropRejected?: boolean;
  /**
   * An approval already proven for a reply to `targetUri`: the signed
   * broadcast Accept of that post's author (federation/inbox/interaction_answers.ts).
   */
  approved?: { targetUri: string; authorizationUri: string };
}

/**
 * Stores a status object through `createStatus` and returns the row (the
 * existing one when the IRI is known). Null when it is not trusted: no
 * author, an author on another server than the object, an author that is
 * not `expectedActor`, a local or unusable author; null too when its author
 * deleted it before it arrived (early_deletes.ts), and when it is a reply
 * between two other servers without the approval the parent's policy wants
 * (authorizations.ts).
 */
export async function storeRemoteStatus(
  ctx: Context<AppContext>,
  object: APObject,
  options: StoreOptions,
): Promise<StatusRow | null> {
  const app = ctx.data;
  const { budget } = options;
  const author = await trustedAuthor(ctx, object, budget, options.expectedActor, options.sender);
  if (!author) return null;
  const fresh = await parseUnlessKnown(app, object, author, options);
  if (!fresh || "known" in fresh) return fresh?.known ?? null;
  const { parsed } = fresh;
  const claim = claimOf(object)?.href ?? null;
  const links = await resolveLinks(ctx, parsed, options.depth + 1, budget, claim);
  // A third server's reply to a remote post that wants approval needs its proof (authorizations.ts).
  const approved = options.approved;
  const verdict: ApprovalVerdict = approved && links.parent?.uri === approved.targetUri
    ? { kind: "proven", authorizationUri: approved.authorizationUri }
    : await judgeApproval(
      ctx,
      { kind: "reply", uri: parsed.uri, actorUri: author.uri, claim },
      links.parent,
      budget,
    );
  if (verdict.kind === "refused") return null;
  const input = remoteStatusInput(parsed, author, links, {
    mentionedAccountIds: await mentionedAccounts(app, parsed),
    interactionPolicy: remotePolicyOf(object, author, options.raw),
  });
  // Written with the row itself, in its transaction: never seen without it.
  if (verdict.kind === "proven") input.approvedByUri = verdict.authorizationUri;
  if (verdict.kind === "deferred") {
    // Checked later by the status_links job; held (hidden) until then.
    input.missingLinks = {
      ...NOTHING_MISSING,
      depth: links.depth,
      ...input.missingLinks,
      claimUri: verdict.claim,
      verify: true,
    };
    input.unverified = true;
  }
  return await writeRemoteStatus(app, input, options.impolite ? links.parent : null);
}

/**
 * The object parsed, unless it is stored already (then that row), or its
 * author deleted it before it arrived (then null: early_deletes.ts), or it
 * is no status we can show.
 */
async function parseUnlessKnown(
  app: AppContext,
  object: APObject,
  author: AccountRow,
  { raw, dropRejected }: Pick<StoreOptions, "raw" | "dropRejected">,
): Promise<{ parsed: ParsedStatus } | { known: StatusRow } | null> {
  const parsed = await parseStatusObject(object, {
    followersUrl: author.followersUrl,
    raw,
    maxMedia: app.config.limits.maxMediaAttachments,
    rejectMedia: await mediaRejected(app, author.domain),
  });
  if (!parsed) return null;
  const known = await statusOrEarlyDelete(app, parsed.uri, author.id);
  if (dropRejected && known.rejected) return null;
  if (known.status) return { known: known.status };
  if (known.deletedEarly) {
    // Its Delete came first: the late Create, or a fetch, does not bring it back.
    logger.info("Dropped {uri}: its author deleted it before it arrived.", { uri: parsed.uri });
    return null;
  }
  return { parsed };
}

/** The parent and quoted post a status names, as far as the budget goes. */
interface ResolvedLinks {
  parent: StatusRow | null;
  quoted: StatusRow | null;
  /** What the budget refused: fetched later, at the level it would have had. */
  missing: MissingLinks | null;
  depth: number;
}

/**
 * The parent and quoted post of `parsed`, stored or fetched within
 * `budget`; what the budget refused is recorded to be fetched later (with
 * the approval the status claims, checked when its parent is linked).
 */
async function resolveLinks(
  ctx: Context<AppContext>,
  parsed: ParsedStatus,
  depth: number,
  budget: FetchBudget,
  claim: string | null,
): Promise<ResolvedLinks> {
  const parent = parsed.inReplyToUri
    ? await budget.watch(() => resolveRemoteStatus(ctx, parsed.inReplyToUri!, budget, depth))
    : null;
  const quote = parsed.quoteUri
    ? await budget.watch(() => resolveRemoteStatus(ctx, parsed.quoteUri!, budget, depth))
    : null;
  const missing: MissingLinks | null = parent?.refused || quote?.refused
    ? {
      parent: parent?.refused ?? false,
      quoteUri: quote?.refused ? parsed.quoteUri : null,
      stampUri: quote?.refused ? parsed.quoteAuthorizationUri : null,
      depth,
      claimUri: parent?.refused ? claim : null,
    }
    : null;
  return { parent: parent?.value ?? null, quoted: quote?.value ?? null, missing, depth };
}

/** The `createStatus` input of a parsed remote status by `author`. */
function remoteStatusInput(
  parsed: ParsedStatus,
  author: AccountRow,
  links: ResolvedLinks,
  known: Pick<RemoteStatusInput, "mentionedAccountIds" | "interactionPolicy">,
): RemoteStatusInput {
  const { parent, quoted } = links;
  return {
    ...known,
    local: false,
    accountId: author.id,
    uri: parsed.uri,
    // parseUnlessKnown found it unknown (a race ends in writeRemoteStatus's unique violation).
    uriChecked: true,
    url: parsed.url,
    content: parsed.content,
    spoilerText: parsed.spoilerText,
    sensitive: parsed.sensitive,
    visibility: parsed.visibility,
    language: parsed.language,
    inReplyToId: parent?.id ?? null,
    inReplyToUri: parsed.inReplyToUri,
    conversationUri: threadOf(parsed, parent),
    tagNames: parsed.tagNames,
    emojis: parsed.emojis,
    cardLink: parsed.cardLink,
    media: parsed.media,
    poll: parsed.poll
      ? {
        options: parsed.poll.options,
        tallies: parsed.poll.tallies,
        multiple: parsed.poll.multiple,
        expiresAt: parsed.poll.expiresAt,
        votersCount: parsed.poll.votersCount,
        uri: parsed.uri,
      }
      : null,
    quotedStatusId: quoted && quoted.visibility !== "direct" ? quoted.id : null,
    quoteState: quoteStateOf(parsed.quoteAuthorizationUri, quoted),
    quoteApprovalPolicy: parsed.quotePolicy,
    createdAt: parsed.published && parsed.published.getTime() <= Date.now() + 60_000
      ? parsed.published
      : undefined,
    missingLinks: links.missing,
  };
}

/**
 * Writes the status; null when createStatus refuses it. A reply our
 * policy forbids, delivered as a plain Create (`refusedBy` is its local
 * parent), is answered with a Reject and remembered; a polite request's
 * caller answers for itself.
 */
async function writeRemoteStatus(
  app: AppContext,
  input: RemoteStatusInput,
  refusedBy: StatusRow | null,
): Promise<StatusRow | null> {
  try {
    return await createStatus(app, input);
  } catch (error) {
    if (error instanceof ReplyForbiddenError && refusedBy?.local) {
      await refuseRemoteInteraction(app, {
        type: "reply",
        targetStatusId: refusedBy.id,
        targetAccountId: refusedBy.accountId,
        accountId: input.accountId,
        interactionUri: input.uri,
      });
    }
    if (error instanceof StatusError) {
      logger.info("Refused the remote status {uri}: {error}", { uri: input.uri, error });
      return null;
    }
    // Stored meanwhile by another worker (a delivery, or a job fetching the same parent).
    if (isUniqueViolation(error)) return await findStatusByUri(app, input.uri);
    throw error;
  }
}

/**
 * The `context` a status may be filed under: none for a reply whose parent
 * we have (it joins the parent's thread, whatever it claims), and only a
 * thread its own server names, never one of another server (or ours): a
 * server cannot put its posts into threads it does not own.
 */
function threadOf(parsed: ParsedStatus, parent: StatusRow | null): string | null {
  if (parent || !parsed.conversationUri) return null;
  return sameOrigin(parsed.conversationUri, parsed.uri) ? parsed.conversationUri : null;
}

/**
 * A quote of a remote post is accepted when it carries a stamp from the
 * quoted post's server; a quote of one of ours waits for the QuoteRequest
 * that the quoting server sends next (federation/inbox/quotes.ts answers it).
 */
export function quoteStateOf(
  stampUri: string | null,
  quoted: StatusRow | null,
): string | undefined {
  if (!quoted) return undefined;
  if (quoted.accountId && stampUri && !quoted.local) {
    return sameOrigin(stampUri, quoted.uri) ? "accepted" : "pending";
  }
  return "pending";
}

/** The object's author when it may be stored as theirs; null otherwise. */
async function trustedAuthor(
  ctx: Context<AppContext>,
  object: APObject,
  budget: FetchBudget,
  expectedActor?: string,
  sender?: AccountRow,
): Promise<AccountRow | null> {
  const authorUri = object.attributionId;
  if (!authorUri || !object.id) return null;
  if (expectedActor && authorUri.href !== expectedActor) {
    logger.warn("Ignored {object}: attributed to {author}, sent by {actor}", {
      object: object.id.href,
      author: authorUri.href,
      actor: expectedActor,
    });
    return null;
  }
  if (!sameOrigin(authorUri.href, object.id.href)) return null;
  if (sameOrigin(authorUri.href, ctx.data.config.origin)) return null;
  const author = sender?.uri === authorUri.href
    ? sender
    : await accountForActorUri(ctx, authorUri, budget).catch(() => null);
  if (!author || author.domain == null || author.deletedAt || author.suspendedAt) return null;
  return author;
}

/**
 * The accounts a status mentions or addresses, among those we know: local
 * ones (they get notifications) and remote ones already stored. Unknown
 * remote actors are not fetched (Mastodon fetches them; it is not needed to
 * show or deliver the status here).
 */
export async function mentionedAccounts(app: AppContext, parsed: ParsedStatus): Promise<string[]> {
  const mentionUris = [...new Set(parsed.mentionUris)];
  // Only our own accounts count when addressed: the rest (most often the
  // author's followers collection) would cost a query per status for nothing.
  const addressed = [...new Set(parsed.addressed)].filter((u) =>
    !mentionUris.includes(u) && sameOrigin(u, app.config.origin)
  );
  if (mentionUris.length === 0 && addressed.length === 0) return [];
  const db = app.database.db;
  const rows = await db.select({ id: accounts.id, uri: accounts.uri, domain: accounts.domain })
    .from(accounts).where(and(
      isNull(accounts.deletedAt),
      or(
        mentionUris.length
          ? or(inArray(accounts.uri, mentionUris), inArray(accounts.url, mentionUris))
          : undefined,
        // Addressed without a Mention tag (a direct message's recipients): local accounts only.
        addressed.length
          ? and(inArray(accounts.uri, addressed), isNull(accounts.domain))
          : undefined,
      ),
    ));
  return [...new Set(rows.map((r) => r.id))];
}
