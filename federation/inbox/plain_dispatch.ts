/**
 * A queued inbound activity that plain_create.ts reads is handled here
 * instead of by Fedify's queued handler, which would read it again with
 * JSON-LD (the cost plain_create.ts saves). What that handler does around
 * its parse is done the same way, with Fedify's own pieces:
 * - the context: the recipient's signed document loader for a personal
 *   inbox, the shared inbox's key dispatcher's (the instance actor) for
 *   the shared one, so fetches made while handling it are signed as before;
 * - replay protection: Fedify's idempotence key for the activity's id,
 *   checked first (an activity seen already is acknowledged and not run
 *   again) and set for a day once the listener succeeded;
 * - the listener: the one registered for the activity's class
 *   (listeners.ts), with the inbox context Fedify would give it (the
 *   payload as received, for forwarding and for the raw terms).
 * When the listener fails, Fedify's handler gets the message: it runs the
 * activity again from its JSON and owns the retries (order.ts), as for a
 * retry. Per-sender ordering is the queue's, which runs this in the
 * sender's turn like any inbox message (stores/fedify_queue.ts).
 *
 * Fedify's inbox metrics and spans (`activitypub.inbox`) do not see these
 * activities; the inbox guard's `rookery_inbox_activities_total` counts them.
 */
import type { Context, Federation, InboxContext, KvKey, KvStore } from "@fedify/fedify";
import type { Activity } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { plainCreate } from "./plain_create.ts";

const logger = getLogger(["rookery", "federation", "inbox"]);

/** What is read of Fedify's inbox message (its routeActivity writes it). */
interface InboxMessage {
  type: "inbox";
  baseUrl: string;
  activity: unknown;
  identifier: string | null;
}

type Listener = (ctx: InboxContext<AppContext>, activity: Activity) => Promise<void> | void;

/**
 * The parts of Fedify's federation object its queued handler uses that its
 * types do not show; each is checked, and without one the message is
 * Fedify's.
 */
interface FedifyInbox {
  kv: KvStore;
  kvPrefixes: { activityIdempotence: KvKey };
  inboxListeners: { dispatchWithClass(activity: Activity): { listener: Listener } | null };
  sharedInboxKeyDispatcher?: (ctx: Context<AppContext>) => unknown;
}

type WithInbox = Context<AppContext> & {
  documentLoader: Context<AppContext>["documentLoader"];
  toInboxContext(
    recipient: string | null,
    activity: unknown,
    activityId: string | undefined,
    activityType: string,
  ): InboxContext<AppContext>;
};

function isInboxMessage(message: unknown): message is InboxMessage {
  if (!message || typeof message !== "object") return false;
  const { type, baseUrl, identifier } = message as Partial<InboxMessage>;
  return type === "inbox" && typeof baseUrl === "string" &&
    (identifier == null || typeof identifier === "string");
}

function fedifyInbox(federation: Federation<AppContext>): FedifyInbox | null {
  const inner = federation as unknown as Partial<FedifyInbox>;
  if (!inner.kv || !Array.isArray(inner.kvPrefixes?.activityIdempotence)) return null;
  if (typeof inner.inboxListeners?.dispatchWithClass !== "function") return null;
  return inner as FedifyInbox;
}

/**
 * Handles `message` when it is an inbox message whose activity
 * plain_create.ts reads; false when it is Fedify's to handle (another
 * message, another shape, or a listener that failed).
 */
export async function handlePlainInboxMessage(
  federation: Federation<AppContext>,
  data: AppContext,
  message: unknown,
): Promise<boolean> {
  if (!isInboxMessage(message)) return false;
  const activity = plainCreate(message.activity);
  const inbox = activity?.id ? fedifyInbox(federation) : null;
  if (!activity?.id || !inbox) return false;
  const dispatched = inbox.inboxListeners.dispatchWithClass(activity);
  if (!dispatched) return false;
  const base = federation.createContext(new URL(message.baseUrl), data) as WithInbox;
  if (typeof base.toInboxContext !== "function") return false;
  const context = base.clone(data) as WithInbox;
  const loader = await recipientLoader(inbox, base, message.identifier);
  if (!loader) return false;
  context.documentLoader = loader;
  const key: KvKey = [...inbox.kvPrefixes.activityIdempotence, context.origin, activity.id.href];
  if (await inbox.kv.get(key) === true) {
    logger.debug("Activity {id} has already been processed.", { id: activity.id.href });
    return true;
  }
  const type = "https://www.w3.org/ns/activitystreams#Create";
  const inboxContext = context.toInboxContext(
    message.identifier,
    message.activity,
    activity.id.href,
    type,
  );
  try {
    await dispatched.listener(inboxContext, activity);
  } catch (error) {
    logger.info("{id} failed ({error}); Fedify's handler takes it.", {
      id: activity.id.href,
      error,
    });
    return false;
  }
  await inbox.kv.set(key, true, { ttl: Temporal.Duration.from({ days: 1 }) });
  logger.debug("Activity {id} has been processed.", { id: activity.id.href });
  return true;
}

/**
 * The document loader Fedify's queued handler gives the listener (see the
 * module comment); null for an identity other than a local actor's.
 */
async function recipientLoader(
  inbox: FedifyInbox,
  context: Context<AppContext>,
  identifier: string | null,
): Promise<Context<AppContext>["documentLoader"] | null> {
  if (identifier != null) return await context.getDocumentLoader({ identifier });
  const identity = await inbox.sharedInboxKeyDispatcher?.(context);
  if (identity == null) return context.documentLoader;
  const named = identity as { identifier?: unknown };
  if (typeof named.identifier !== "string") return null;
  return await context.getDocumentLoader({ identifier: named.identifier });
}
