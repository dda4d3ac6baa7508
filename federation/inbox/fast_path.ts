/**
 * The inbox's fast path: a delivery the inbox guard let through (guard.ts)
 * whose activity is plainly shaped, as Mastodon's are, goes onto the inbox
 * queue as the message Fedify itself would queue, without Fedify's handling
 * of the request.
 *
 * That handling parsed the activity as JSON-LD twice (once to look for
 * object proofs, once to read it), built the recipient's whole actor
 * document only to learn that it exists, and threw the result away: the
 * queued handler parses the activity again from its JSON. On a busy inbox
 * that was about a third of the CPU of a delivery. What it decided is
 * decided here, more cheaply:
 * - the recipient of a personal inbox is a local account, not deleted
 *   (else Fedify's 404, which this path leaves to Fedify);
 * - the activity has an actor and a well-formed id (else Fedify's path and
 *   its 400); the guard matched the actor with the signer already;
 * - a Linked Data signature or integrity proofs are Fedify's work in the
 *   request unless the guard marked the delivery as HTTP-signed by the
 *   activity's own actor ({@link SIGNED_BY_ACTOR}: a relayed activity
 *   takes Fedify's path) and they are of their plain shapes
 *   (ld_signature.ts). Those ride along unread: with a queue and the
 *   guard's authentication (`skipSignatureVerification`), what Fedify's
 *   request made of them (RDF canonicalization, verifications whose
 *   outcome decided nothing) changed nothing, and the queued activity is
 *   the JSON as received either way, which forwarding sends on byte for
 *   byte. Mastodon, too, reads an LD signature only from someone else.
 * An activity that passes these but that JSON-LD cannot read is dropped by
 * the queued handler (logged), where Fedify's request answered 400;
 * Mastodon, too, answers 202 and drops it later. Replay protection is the
 * queued handler's, as before (listeners.ts); per-sender ordering is the
 * queue's (order.ts).
 */
import type { MessageQueue } from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import { context, propagation } from "@opentelemetry/api";
import type { AppContext } from "../../context.ts";
import { findLocalAccountByIdentifier } from "../dispatchers/local_actors.ts";
import { INSTANCE_ACTOR } from "../dispatchers/instance_actor.ts";
import { idOf, SIGNED_BY_ACTOR } from "./guard.ts";
import { isPlainLdSignature, isPlainProof } from "./ld_signature.ts";

const logger = getLogger(["rookery", "federation", "inbox"]);

const AS_CONTEXT = "https://www.w3.org/ns/activitystreams";
/** A personal inbox (the recipient) or the shared one. */
const INBOX = /^\/(?:users\/([^/]+)\/)?inbox\/?$/;
/** An activity type as Mastodon writes it: a bare term of the ActivityStreams context. */
const PLAIN_TYPE = /^[A-Z][A-Za-z]{1,40}$/;

/**
 * Queues a plainly shaped delivery and answers 202; null when the request
 * is to take Fedify's path (see the module comment).
 */
export async function queuePlainDelivery(
  app: AppContext,
  queue: MessageQueue,
  request: Request,
): Promise<Response | null> {
  if (request.method !== "POST") return null;
  const match = INBOX.exec(new URL(request.url).pathname);
  if (!match) return null;
  const recipient = match[1] == null ? null : decoded(match[1]);
  if (recipient === undefined) return null;
  const activity = plainActivity(
    await request.clone().json().catch(() => null),
    request.headers.get(SIGNED_BY_ACTOR) === "1",
  );
  if (!activity) return null;
  if (recipient != null && !await recipientExists(app, recipient)) return null;
  const traceContext = {};
  propagation.inject(context.active(), traceContext);
  // Fedify's inbox message (its routeActivity), read by its queued handler.
  await queue.enqueue({
    type: "inbox",
    id: crypto.randomUUID(),
    baseUrl: app.config.origin,
    activity,
    identifier: recipient,
    attempt: 0,
    started: new Date().toISOString(),
    traceContext,
  });
  await request.body?.cancel();
  logger.debug("Queued {id} from {actor}.", { id: activity.id, actor: idOf(activity.actor) });
  return new Response("Activity is enqueued.", {
    status: 202,
    headers: { "Content-Type": "text/plain; charset=utf-8" },
  });
}

/** The activity when it is plainly shaped; else null. */
function plainActivity(json: unknown, signedByActor: boolean): Record<string, unknown> | null {
  if (!json || typeof json !== "object" || Array.isArray(json)) return null;
  const activity = json as Record<string, unknown>;
  if (("signature" in activity || "proof" in activity) && !signedByActor) return null;
  if ("signature" in activity && !isPlainLdSignature(activity.signature)) return null;
  if ("proof" in activity && !isPlainProof(activity.proof)) return null;
  if (typeof activity.type !== "string" || !PLAIN_TYPE.test(activity.type)) return null;
  if (!hasActivityStreamsContext(activity["@context"])) return null;
  const actor = idOf(activity.actor);
  if (actor == null || !isHttpUrl(actor)) return null;
  if (activity.id !== undefined && (typeof activity.id !== "string" || !isHttpUrl(activity.id))) {
    return null;
  }
  return activity;
}

function hasActivityStreamsContext(value: unknown): boolean {
  if (value === AS_CONTEXT) return true;
  return Array.isArray(value) && value[0] === AS_CONTEXT;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/** A path segment decoded; undefined when it is malformed. */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Whether a personal inbox's owner is a local account, not deleted (the instance actor: Fedify's path). */
async function recipientExists(app: AppContext, identifier: string): Promise<boolean> {
  if (identifier === INSTANCE_ACTOR) return false;
  const account = await app.core.keyOwners.account(
    identifier,
    () => findLocalAccountByIdentifier(app.database.db, identifier),
  );
  return account != null && account.deletedAt == null;
}
