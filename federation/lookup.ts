/**
 * Looking up remote actors and objects with requests signed by the instance
 * actor, so servers in secure mode (authorized fetch) answer them.
 */
import type { Context } from "@fedify/fedify";
import type { DocumentLoader, Object as APObject } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { INSTANCE_ACTOR } from "./instance_actor.ts";

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
 */
export async function lookupRemote(
  ctx: Context<AppContext>,
  handleOrUrl: string,
): Promise<APObject | null> {
  try {
    return await ctx.lookupObject(handleOrUrl, {
      documentLoader: await instanceDocumentLoader(ctx),
    });
  } catch (error) {
    logger.info("Lookup of {query} failed: {error}", { query: handleOrUrl, error });
    return null;
  }
}
