/**
 * Asking another server's WebFinger about a handle (`acct:user@domain`).
 * Fedify's own client always speaks https; this one picks the scheme the
 * way Mastodon does when HTTPS is off, so two servers on plain http (one
 * machine, development, tests) can find each other:
 *
 * - https whenever our ORIGIN is https: a handle is never looked up over
 *   plain http then, and a redirect may never go from https to http;
 * - with an http ORIGIN, the scheme of the peer when we know it (the
 *   actor's own URL), else http; a redirect to https is followed.
 *
 * The same edge rules as the document loader: one deadline for the whole
 * lookup, at most 3 redirects, at most 64 KiB of JRD, and (unless
 * ALLOW_PRIVATE_ADDRESS) connections only to checked public addresses
 * through actors/net/public_fetch.ts. Failures are null, never thrown.
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { PrivateAddressError, publicFetch } from "../../actors/net/public_fetch.ts";
import { readUpTo } from "../../actors/net/read_body.ts";
import { productUserAgent } from "../../version.ts";
import { federationRefused } from "../../actors/moderation/domain_rules.ts";

const logger = getLogger(["rookery", "federation", "webfinger"]);

/** Redirects of one WebFinger request followed at most. */
const MAX_REDIRECTS = 3;
/** Bytes of a JRD read at most (Mastodon's are well under 2 KiB). */
const MAX_JRD_BYTES = 64 * 1024;

/** What a JRD says that matters to us. */
export interface WebFingerAnswer {
  /** The subject as `{username, domain}` when it is an `acct:` URI; null otherwise. */
  subject: { username: string; domain: string } | null;
  /** The `self` link of an ActivityPub type, as given. */
  self: string | null;
}

/** The scheme to ask `domain`'s WebFinger with (see the module comment). */
export function webFingerScheme(app: AppContext, peerUrl?: string): "https:" | "http:" {
  if (new URL(app.config.origin).protocol === "https:") return "https:";
  if (peerUrl) {
    try {
      if (new URL(peerUrl).protocol === "https:") return "https:";
    } catch {
      // not a URL: the default below
    }
  }
  return "http:";
}

/**
 * `user@host[:port]` split and normalised (the domain lower-cased, without
 * a trailing dot); null when it is not a valid handle.
 */
export function parseAcct(value: string): { username: string; domain: string } | null {
  const match = /^(?:acct:)?@?([^@\s/:?#]+)@([^@\s/?#]+)$/i.exec(value.trim());
  if (!match || match[1].length > 255) return null;
  const domain = match[2].toLowerCase().replace(/\.(?=:\d+$|$)/, "");
  try {
    if (new URL(`https://${domain}/`).host !== domain) return null;
  } catch {
    return null;
  }
  return { username: match[1], domain };
}

/**
 * Why a handle lookup found nothing, so an operator can tell "no such
 * account" from "could not ask" (handles.ts logs it at info level).
 */
export type LookupFailureReason =
  /** Our domain rules refuse the domain (suspended, or not allowed). */
  | "blocked"
  /** The name is this machine's or a private network's (ALLOW_PRIVATE_ADDRESS is off). */
  | "private_address"
  /** No connection, no DNS answer, a timeout, or a server error (5xx). */
  | "unreachable"
  /** WebFinger answered that it knows no such account (4xx). */
  | "not_found"
  /** WebFinger answered something that is not a JRD. */
  | "invalid_answer"
  /** The JRD has no ActivityPub `self` link. */
  | "no_actor_link"
  /** The actor document could not be fetched or read. */
  | "actor_unavailable"
  /** The document fetched is not an actor. */
  | "not_an_actor";

export interface LookupFailure {
  reason: LookupFailureReason;
  detail: string;
}

/** A WebFinger answer, or why there is none. */
export type WebFingerOutcome = { answer: WebFingerAnswer } | { failure: LookupFailure };

/**
 * Asks `domain`'s WebFinger about `acct:username@domain`. Null when the
 * server cannot be reached, answers an error, or the answer is not a JRD
 * (the reason is logged at info level; {@link askWebFinger} returns it).
 */
export async function fetchWebFinger(
  app: AppContext,
  handle: { username: string; domain: string },
  scheme: "https:" | "http:",
): Promise<WebFingerAnswer | null> {
  const outcome = await askWebFinger(app, handle, scheme);
  if ("answer" in outcome) return outcome.answer;
  logger.info("WebFinger acct:{username}@{domain} failed ({reason}): {detail}", {
    ...handle,
    ...outcome.failure,
  });
  return null;
}

/** {@link fetchWebFinger}, with the reason when there is no answer. */
export async function askWebFinger(
  app: AppContext,
  handle: { username: string; domain: string },
  scheme: "https:" | "http:",
): Promise<WebFingerOutcome> {
  const failure = (reason: LookupFailureReason, detail: string) => ({
    failure: { reason, detail },
  });
  const resource = `acct:${handle.username}@${handle.domain}`;
  // Nothing is asked of a server we do not federate with (actors/moderation/domain_rules.ts).
  if (await federationRefused(app, handle.domain)) {
    return failure("blocked", `this server does not federate with ${handle.domain}`);
  }
  const deadline = AbortSignal.timeout(app.config.fetchTimeoutMs);
  const strict = new URL(app.config.origin).protocol === "https:";
  let url: URL;
  try {
    url = new URL(`${scheme}//${handle.domain}/.well-known/webfinger`);
  } catch {
    return failure("invalid_answer", `not a domain: ${handle.domain}`);
  }
  url.searchParams.set("resource", resource);
  try {
    for (let hop = 0;; hop++) {
      const response = await send(app, url, deadline);
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        const next = new URL(location, url);
        if (hop >= MAX_REDIRECTS) throw new Error("too many redirects");
        if (next.protocol !== "https:" && (next.protocol !== "http:" || strict)) {
          throw new Error(`refused redirect to ${next.protocol}`);
        }
        if (url.protocol === "https:" && next.protocol === "http:") {
          throw new Error("refused redirect from https to http");
        }
        url = next;
        continue;
      }
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        const detail = `${url.href} answered HTTP ${response.status}`;
        return failure(
          response.status >= 400 && response.status < 500 ? "not_found" : "unreachable",
          detail,
        );
      }
      const { bytes, truncated } = await readUpTo(response.body, MAX_JRD_BYTES);
      if (truncated) return failure("invalid_answer", `JRD larger than ${MAX_JRD_BYTES} bytes`);
      let answer: WebFingerAnswer | null = null;
      try {
        answer = readJrd(JSON.parse(new TextDecoder().decode(bytes)));
      } catch {
        // not JSON: the same as JSON that is no JRD
      }
      return answer ? { answer } : failure("invalid_answer", `${url.href} answered no JRD`);
    }
  } catch (error) {
    const detail = `${url.href}: ${String(error)}`;
    return failure(
      error instanceof PrivateAddressError ? "private_address" : "unreachable",
      detail,
    );
  }
}

async function send(app: AppContext, url: URL, signal: AbortSignal): Promise<Response> {
  const headers = {
    Accept: "application/jrd+json, application/json",
    "User-Agent": productUserAgent(app.config.origin),
  };
  return app.config.allowPrivateAddress
    ? await fetch(url, { headers, redirect: "manual", signal })
    : await publicFetch(url, { headers, signal });
}

const AP_TYPES = new Set([
  "application/activity+json",
  'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
]);

/** The subject and the ActivityPub `self` link of a JRD; null when it is not one. */
function readJrd(json: unknown): WebFingerAnswer | null {
  if (!json || typeof json !== "object" || Array.isArray(json)) return null;
  const { subject, links } = json as { subject?: unknown; links?: unknown };
  if (typeof subject !== "string") return null;
  let self: string | null = null;
  for (const link of Array.isArray(links) ? links.slice(0, 100) : []) {
    if (!link || typeof link !== "object") continue;
    const { rel, type, href } = link as Record<string, unknown>;
    if (rel !== "self" || typeof href !== "string") continue;
    if (typeof type === "string" && AP_TYPES.has(type.replace(/\s*;\s*/g, "; "))) {
      self = href;
      break;
    }
  }
  return { subject: parseAcct(subject), self };
}
