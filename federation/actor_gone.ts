/**
 * Whether a remote actor is really gone, asked of its own server before a
 * Delete of that actor purges what it had here (Mastodon fetches the actor
 * again and expects 404 or 410). A signed Delete proves only that its key
 * signed it once: a Delete replayed out of its context, or sent by a server
 * that still serves the actor, must not empty the account.
 */
import type { Context } from "@fedify/fedify";
import { FetchError } from "@fedify/vocab-runtime";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { instanceDocumentLoader } from "./fetch/lookup.ts";

const logger = getLogger(["rookery", "federation", "actor-gone"]);

/**
 * True when the actor's server answers 404 or 410 for it (or serves a
 * Tombstone in its place); false when it still serves a document, or could
 * not be asked (an error, a timeout, a refused domain): then nothing is
 * purged. The fetch is signed by the instance actor (servers in secure mode
 * answer it) and never read from a cache.
 */
export async function actorIsGone(ctx: Context<AppContext>, actorUri: string): Promise<boolean> {
  try {
    const loader = await instanceDocumentLoader(ctx);
    const { document } = await loader(actorUri);
    const type = (document as { type?: unknown } | null)?.type;
    return type === "Tombstone";
  } catch (error) {
    const status = error instanceof FetchError ? error.response?.status : undefined;
    if (status === 404 || status === 410) return true;
    logger.info("Could not confirm that {actor} is gone: {error}", { actor: actorUri, error });
    return false;
  }
}
