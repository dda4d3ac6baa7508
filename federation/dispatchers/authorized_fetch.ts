/**
 * Authorized fetch (Mastodon's secure mode, `AUTHORIZED_FETCH=true`): who may
 * GET our ActivityPub objects and collections.
 *
 * Every object and collection dispatcher registers {@link authorizeFetch}
 * as its Fedify `authorize` predicate; the status routes of api/ that answer
 * ActivityPub (a Note at its page URL, a Tombstone) ask it too. In that mode
 * a GET passes only with an HTTP signature that
 *
 * 1. covers the method, the target and the host, the host being ours
 *    (request_host.ts), and is not dated more than an hour ahead (the rules
 *    of the inbox guard, without the digest): a signature made for another
 *    path or another server is not reusable;
 * 2. verifies with a key fetched through our own loaders
 *    (document_loader.ts): a key counts only when its owner's actor
 *    document, from the owner's origin, lists it. Fedify's
 *    `RequestContext.getSignedKey()` fetches the key with the context's
 *    document loader, which is ours (signed by the instance actor, so a
 *    signer's server in this mode answers too), so this check is not
 *    bypassed;
 * 3. belongs to a server we federate with (not suspended by an instance
 *    domain block, allowed in allowlist mode: actors/moderation/domain_rules.ts) and
 *    that the owner of what is fetched has not blocked: an account block of
 *    the signer, or a domain block of the signer's domain, refuses it.
 *
 * Anything else is refused with 401. The actor documents stay public
 * (actor.ts serves unsigned readers only the key and what verifying needs),
 * as do WebFinger, NodeInfo and host-meta: peers must reach them to verify
 * the signatures we send.
 */
import type { RequestContext } from "@fedify/fedify";
import { and, eq, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accountDomainBlocks, accounts, blocks } from "../../db/schema/mod.ts";
import { signedInTheFuture, uncoveredParts } from "../inbox/guard.ts";
import { findLocalAccountByIdentifier } from "./local_actors.ts";
import { federationRefused } from "../../actors/moderation/domain_rules.ts";
import { addressedToUs } from "../request_host.ts";

const logger = getLogger(["rookery", "federation", "authorized-fetch"]);

/** Who signed a GET, once the signature is verified. */
export interface FetchSigner {
  /** The actor that owns the key (it lists the key). */
  actorId: URL;
  /** The signer's domain, spelt as domain blocks and remote accounts spell it. */
  domain: string;
}

/** The error of a refused fetch (Mastodon's `require_account_signature!` answers 401 too). */
export const UNSIGNED_FETCH_ERROR = "Request not signed, or its signature could not be verified";

// One verification per request: Fedify makes a new context for each
// dispatcher call (an object dispatcher and its authorize predicate), so the
// verdict is kept on the request itself, for as long as it lives.
const VERIFIED = Symbol("rookery.verifiedSigner");
type VerifiedRequest = Request & { [VERIFIED]?: Promise<FetchSigner | null> };

/** Whether a request carries any HTTP signature (draft-cavage or RFC 9421). */
export function isSigned(request: Request): boolean {
  return request.headers.has("signature") || request.headers.has("signature-input");
}

/**
 * The verified signer of a GET, or null when it is unsigned or its
 * signature does not hold (1 and 2 above).
 */
export function signedFetcher(ctx: RequestContext<AppContext>): Promise<FetchSigner | null> {
  const request = ctx.request as VerifiedRequest;
  let result = request[VERIFIED];
  if (!result) {
    result = verifySigner(ctx);
    Object.defineProperty(request, VERIFIED, { value: result });
  }
  return result;
}

async function verifySigner(ctx: RequestContext<AppContext>): Promise<FetchSigner | null> {
  const { headers } = ctx.request;
  if (!isSigned(ctx.request)) return null;
  const weakness = !addressedToUs(ctx.request, ctx.data.config.origin)
    ? "made for another host"
    : signedInTheFuture(headers)
    ? "a date in the future"
    : uncoveredParts(headers, { digest: false });
  if (weakness) {
    logger.info("Refused a signed fetch of {path}: {weakness}.", {
      path: ctx.url.pathname,
      weakness,
    });
    return null;
  }
  try {
    const key = await ctx.getSignedKey();
    const owner = key?.ownerId;
    if (!owner) return null;
    return { actorId: owner, domain: owner.hostname.replace(/\.$/, "") + portOf(owner) };
  } catch (error) {
    logger.info("Could not verify a signed fetch of {path}: {error}", {
      path: ctx.url.pathname,
      error,
    });
    return null;
  }
}

function portOf(url: URL): string {
  return url.port ? `:${url.port}` : "";
}

/**
 * The authorize predicate of objects and collections. `owner` is the local
 * username whose object or collection is fetched (null: none, as for a
 * custom emoji). Always true when authorized fetch is off.
 */
export async function authorizeFetch(
  ctx: RequestContext<AppContext>,
  owner: string | null,
): Promise<boolean> {
  if (!ctx.data.config.authorizedFetch) return true;
  const signer = await signedFetcher(ctx);
  if (!signer) return false;
  if (await federationRefused(ctx.data, signer.domain)) return false;
  if (owner == null) return true;
  return !await ownerBlocks(ctx.data, owner, signer);
}

/** Whether the local account `username` blocks the signer or its domain. */
async function ownerBlocks(
  app: AppContext,
  username: string,
  signer: FetchSigner,
): Promise<boolean> {
  const db = app.database.db;
  const account = await findLocalAccountByIdentifier(db, username);
  if (!account) return false;
  const [domainBlock] = await db.select({ id: accountDomainBlocks.id }).from(accountDomainBlocks)
    .where(and(
      eq(accountDomainBlocks.accountId, account.id),
      sql`lower(${accountDomainBlocks.domain}) = ${signer.domain.toLowerCase()}`,
    )).limit(1);
  if (domainBlock) return true;
  const [block] = await db.select({ id: blocks.id }).from(blocks)
    .innerJoin(accounts, eq(accounts.id, blocks.targetAccountId))
    .where(and(eq(blocks.accountId, account.id), eq(accounts.uri, signer.actorId.href)))
    .limit(1);
  return block != null;
}

/** The answer to a refused fetch. */
export function unauthorizedFetch(): Response {
  return new Response(JSON.stringify({ error: UNSIGNED_FETCH_ERROR }), {
    status: 401,
    headers: { "Content-Type": "application/json; charset=utf-8", Vary: "Accept, Signature" },
  });
}
