/**
 * Looking up remote actors and objects with requests signed by the instance
 * actor, so servers in secure mode (authorized fetch) answer them.
 */
import type { Context } from "@fedify/fedify";
import { type DocumentLoader, Object as APObject } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { INSTANCE_ACTOR } from "../dispatchers/instance_actor.ts";
import type { FetchBudget } from "./budget.ts";
import { domainOfUrl, federationRefused } from "../../actors/moderation/domain_rules.ts";
import { capturingLoader, remember } from "../dialects/received.ts";

const logger = getLogger(["rookery", "federation", "lookup"]);

/** A Fedify context outside any request (workers, commands, tests). */
export function instanceContext(app: AppContext): Context<AppContext> {
  return app.federation.createContext(new URL(app.config.origin), app);
}

/** A document loader whose fetches carry the instance actor's HTTP signature. */
export async function instanceDocumentLoader(ctx: Context<AppContext>): Promise<DocumentLoader> {
  return await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR });
}

/**
 * Resolves a handle (`@user@host`, `acct:user@host`) through WebFinger, or a
 * URL directly, and fetches the object with a signed GET. Returns null when
 * it cannot be found, fetched or parsed; input from users never throws here.
 *
 * With a `budget` (federation/fetch/budget.ts) only a URL is fetched, once,
 * taken from the budget: no WebFinger fallback when it fails (Fedify's
 * lookup would ask WebFinger about the URL, a second request the budget
 * could not count), and nothing at all once the budget is spent.
 */
export async function lookupRemote(
  ctx: Context<AppContext>,
  handleOrUrl: string,
  budget?: FetchBudget,
): Promise<APObject | null> {
  try {
    // Our own objects are read from the database by whoever asks, never over HTTP.
    if (isOwnUrl(ctx.data, handleOrUrl)) {
      logger.debug("Not fetching {query}: it is on our own origin.", { query: handleOrUrl });
      return null;
    }
    // A handle's or URL's domain we do not federate with is not asked (actors/moderation/domain_rules.ts).
    if (await federationRefused(ctx.data, domainOfQuery(handleOrUrl))) return null;
    if (budget) return await fetchObject(ctx, handleOrUrl, budget);
    // The fetched JSON is kept with the object: what Fedify's parse drops
    // is read from it (federation/dialects/).
    const { loader, rememberFrom } = capturingLoader(await instanceDocumentLoader(ctx));
    return rememberFrom(await ctx.lookupObject(handleOrUrl, { documentLoader: loader }));
  } catch (error) {
    logger.info("Lookup of {query} failed: {error}", { query: handleOrUrl, error });
    return null;
  }
}

/** Whether `query` is a URL on our own origin. */
function isOwnUrl(app: AppContext, query: string): boolean {
  try {
    return new URL(query.trim()).origin === app.config.origin;
  } catch {
    return false;
  }
}

/** The domain of a handle (`@user@host`, `acct:user@host`) or of a URL; null otherwise. */
function domainOfQuery(query: string): string | null {
  const trimmed = query.trim();
  if (/^https?:\/\//i.test(trimmed)) return domainOfUrl(trimmed);
  const match = /^(?:acct:)?@?[^@\s]+@([^@\s/]+)$/i.exec(trimmed);
  return match ? match[1].toLowerCase() : null;
}

/** One budgeted, signed fetch of the document at `url`, parsed; null when it is not an object. */
async function fetchObject(
  ctx: Context<AppContext>,
  url: string,
  budget: FetchBudget,
): Promise<APObject | null> {
  if (!/^https?:\/\//i.test(url)) return null;
  const loader = budget.wrap(await instanceDocumentLoader(ctx));
  const remote = await loader(url);
  const object = await APObject.fromJsonLd(remote.document, {
    documentLoader: loader,
    contextLoader: ctx.contextLoader,
    baseUrl: new URL(remote.documentUrl),
  });
  // The loader refuses an id on another origin already; Fedify's lookup checks it again.
  if (object.id && object.id.origin !== new URL(remote.documentUrl).origin) return null;
  return remember(object, remote.document);
}
