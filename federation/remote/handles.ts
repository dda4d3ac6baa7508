/**
 * What a remote account is called here: the handle WebFinger confirms, as
 * Mastodon decides it (its FetchRemoteActorService and ProcessAccountService).
 *
 * An actor document only suggests a handle: its `preferredUsername` and
 * the host it lives on. The handle counts once WebFinger on the handle's
 * domain answers with a `self` link to that very actor. The subject of the
 * first answer may name another domain (a split domain: actors on
 * ap.example, handles @user@example); that subject is asked in turn and
 * must confirm itself and point back to the actor too. Nothing else is
 * followed, so two subjects naming each other cost two requests. An actor
 * that states its handle (FEP-2c59's `webfinger` property, which Mastodon
 * 4.6 prefers) is asked there first, under the same rule.
 *
 * A row changes its handle, or takes another actor's URI and key, only on
 * such a confirmation (remote_accounts.ts). Confirmations are cached on
 * the row (`last_webfingered_at`) for a day; a failed check is cached the
 * same way, so a peer whose WebFinger is down is not asked on every
 * delivery, and never stops its deliveries.
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import {
  askWebFinger,
  fetchWebFinger,
  type LookupFailure,
  parseAcct,
  webFingerScheme,
} from "../fetch/webfinger_client.ts";

const logger = getLogger(["rookery", "federation", "handles"]);

/** A confirmed handle is checked again after this long. */
export const WEBFINGER_RECHECK_MS = 24 * 60 * 60 * 1000;

/** A remote account's handle. */
export interface Handle {
  username: string;
  domain: string;
}

/** The handle an actor document states (FEP-2c59 `webfinger`), from its JSON; null when none. */
export function statedHandle(json: unknown): Handle | null {
  if (!json || typeof json !== "object") return null;
  const value = (json as Record<string, unknown>).webfinger;
  return typeof value === "string" && value.length <= 1_024 ? parseAcct(value) : null;
}

/** Same handle, compared as Mastodon does (case-insensitively). */
export function sameHandle(a: Handle, b: Handle): boolean {
  return a.username.toLowerCase() === b.username.toLowerCase() &&
    a.domain.toLowerCase() === b.domain.toLowerCase();
}

/**
 * The handle WebFinger confirms for the actor `actorUri`: the one its
 * document states (`stated`), if its domain confirms it; else starting from
 * the one it suggests (`preferredUsername@actor host`); null when no handle
 * is confirmed (WebFinger unreachable, no link back to the actor).
 *
 * When the host's answer points back to the actor but names a subject on
 * another domain that answers otherwise (someone else's actor, another
 * subject, a loop), the actor's host still vouched for
 * `preferredUsername@host`, and that is the handle. When that domain does
 * not answer at all, nothing is confirmed (null): a stored row keeps its
 * handle through an outage.
 */
export async function confirmHandle(
  app: AppContext,
  actorUri: string,
  suggested: Handle,
  stated: Handle | null = null,
): Promise<Handle | null> {
  const ownDomain = app.config.domain.toLowerCase();
  if (stated && !sameHandle(stated, suggested) && stated.domain !== ownDomain) {
    const answer = await fetchWebFinger(app, stated, webFingerScheme(app));
    if (answer?.subject && sameHandle(answer.subject, stated) && answer.self === actorUri) {
      return answer.subject;
    }
  }
  const first = await fetchWebFinger(app, suggested, webFingerScheme(app, actorUri));
  if (!first || first.self !== actorUri) return null;
  const subject = first.subject;
  if (!subject || sameHandle(subject, suggested)) return suggested;
  // A subject on our own domain is one of our accounts: never a remote one's.
  if (subject.domain === ownDomain) return suggested;
  const second = await fetchWebFinger(app, subject, webFingerScheme(app));
  if (!second) return null;
  if (second.subject && sameHandle(second.subject, subject) && second.self === actorUri) {
    return second.subject;
  }
  return suggested;
}

/**
 * The actor URI behind a handle typed by a user (a search, a mention), or
 * why there is none: WebFinger on the handle's domain, then once more on
 * the subject's domain when it names another one (a split domain). The
 * actor's own handle is confirmed again when its document is stored
 * (upsertRemoteActor).
 */
export async function resolveHandle(
  app: AppContext,
  handle: Handle,
): Promise<{ uri: string } | { failure: LookupFailure }> {
  const outcome = await askWebFinger(app, handle, webFingerScheme(app));
  if ("failure" in outcome) return outcome;
  const first = outcome.answer;
  const subject = first.subject;
  let self = first.self;
  if (subject && !sameHandle(subject, handle) && subject.domain !== app.config.domain) {
    const second = await fetchWebFinger(app, subject, webFingerScheme(app));
    self = second?.self ?? first.self;
  }
  return self ? { uri: self } : {
    failure: { reason: "no_actor_link", detail: "the JRD has no ActivityPub self link" },
  };
}

/** What each reason means to an operator reading the log. */
const REASONS: Record<LookupFailure["reason"], string> = {
  blocked: "this server does not federate with its domain",
  private_address: "its server is on a private or reserved address, which is refused",
  unreachable: "its server could not be reached",
  not_found: "its server's WebFinger knows no such account",
  invalid_answer: "its server's WebFinger answer is not valid",
  no_actor_link: "its server's WebFinger answer names no ActivityPub actor",
  actor_unavailable: "the actor document could not be fetched",
  not_an_actor: "the document found is not an actor",
};

/**
 * Logs at info level why a lookup typed by a user (search, account lookup,
 * mention) found nothing: `reason` is one of {@link LookupFailure}'s, so an
 * operator (or a log filter) can tell "not found" from "unreachable".
 */
export function logUnresolved(query: string, failure: LookupFailure): void {
  logger.info("{query} was not resolved: {explanation} ({reason}; {detail})", {
    query,
    explanation: REASONS[failure.reason],
    ...failure,
  });
}
