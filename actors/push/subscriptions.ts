/**
 * Push subscription commands (Mastodon's Api::V1::Push::SubscriptionsController):
 * one subscription per access token; a new one replaces the token's older
 * one; an update changes only the alerts and the policy (both replaced, as
 * Mastodon replaces `data`); deleting is idempotent.
 *
 * The endpoint and keys are checked here so that delivery never meets a
 * subscription it cannot encrypt for: the endpoint must be an https URL
 * (http only where private addresses are allowed, i.e. development and
 * tests), the p256dh key an uncompressed P-256 point on the curve, the auth
 * secret 16 bytes (base64 or base64url, padded or not).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { oauthAccessTokens, webPushSubscriptions } from "../../db/schema/mod.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { allowedAlerts, PUSH_POLICIES, type PushPolicy } from "./alerts.ts";
import { decodeBase64Any, toBase64Url } from "../formatting/encoding.ts";

export type PushSubscriptionRow = typeof webPushSubscriptions.$inferSelect;

/** Longest endpoint accepted (push services' URLs are a few hundred characters). */
export const MAX_ENDPOINT_LENGTH = 2048;

/** The alerts and policy of a subscription, as given. */
export interface PushData {
  /** Alert name → wanted; absent names are false. */
  alerts: Record<string, boolean>;
  /** Absent: `all`. */
  policy?: string;
}

/** A new subscription, as given. */
export interface NewPushSubscription {
  endpoint?: string;
  p256dh?: string;
  auth?: string;
  standard?: boolean;
  data: PushData;
}

/** The token a subscription belongs to, as the request presented it. */
export interface PushOwner {
  tokenId: string;
  userId: string;
  /** The bearer token itself (Mastodon's payload carries it). */
  token: string;
  /** The user's role (admin alerts need a staff role). */
  role: string;
}

/** Where endpoints may point. */
export interface EndpointRules {
  /** http endpoints are allowed too (ALLOW_PRIVATE_ADDRESS: development and tests). */
  allowHttp: boolean;
}

// NIST P-256: y² = x³ − 3x + b over GF(p).
const P = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

function bigFrom(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

/**
 * Whether `bytes` is an uncompressed point on P-256. WebCrypto's raw import
 * does not check the curve equation here, and a point off the curve would
 * only fail (or worse, leak) at encryption time.
 */
export function isP256Point(bytes: Uint8Array): boolean {
  if (bytes.length !== 65 || bytes[0] !== 4) return false;
  const x = bigFrom(bytes.subarray(1, 33));
  const y = bigFrom(bytes.subarray(33, 65));
  if (x >= P || y >= P) return false;
  const rhs = ((x * x % P) * x - 3n * x + B) % P;
  return (y * y - rhs) % P === 0n;
}

function checkEndpoint(endpoint: string | undefined, rules: EndpointRules, problems: Problems) {
  if (!endpoint) return problems.add("endpoint", "ERR_BLANK", "can't be blank");
  let url: URL | null = null;
  try {
    url = endpoint.length <= MAX_ENDPOINT_LENGTH ? new URL(endpoint) : null;
  } catch {
    url = null;
  }
  const schemeOk = url?.protocol === "https:" || (rules.allowHttp && url?.protocol === "http:");
  if (!url || !schemeOk || !url.hostname || url.username || url.password) {
    problems.add("endpoint", "ERR_INVALID", "is invalid");
  }
}

/** The keys normalised to base64url without padding, or problems added. */
function checkKeys(
  input: NewPushSubscription,
  problems: Problems,
): { p256dh: string; auth: string } {
  const point = input.p256dh ? decodeBase64Any(input.p256dh) : null;
  if (!input.p256dh) problems.add("key_p256dh", "ERR_BLANK", "can't be blank");
  else if (!point || !isP256Point(point)) problems.add("key_p256dh", "ERR_INVALID", "is invalid");
  const auth = input.auth ? decodeBase64Any(input.auth) : null;
  if (!input.auth) problems.add("key_auth", "ERR_BLANK", "can't be blank");
  else if (!auth || auth.length !== 16) problems.add("key_auth", "ERR_INVALID", "is invalid");
  return {
    p256dh: point ? toBase64Url(point) : "",
    auth: auth ? toBase64Url(auth) : "",
  };
}

function checkPolicy(policy: string | undefined, problems: Problems): PushPolicy {
  if (policy == null) return "all";
  if ((PUSH_POLICIES as readonly string[]).includes(policy)) return policy as PushPolicy;
  problems.add("policy", "ERR_INCLUSION", "is not included in the list");
  return "all";
}

/**
 * Subscribes the token, replacing its older subscription. The token's row
 * is locked first, so two concurrent subscriptions of one token end as one.
 */
export async function subscribe(
  db: Db,
  owner: PushOwner,
  input: NewPushSubscription,
  rules: EndpointRules,
): Promise<PushSubscriptionRow> {
  const problems = new Problems();
  checkEndpoint(input.endpoint, rules, problems);
  const keys = checkKeys(input, problems);
  const policy = checkPolicy(input.data.policy, problems);
  problems.throwIfAny();
  return await db.transaction(async (tx) => {
    const [token] = await tx.select({ id: oauthAccessTokens.id }).from(oauthAccessTokens)
      .where(eq(oauthAccessTokens.id, owner.tokenId)).for("update");
    if (!token) throw new NotFoundError();
    await tx.delete(webPushSubscriptions)
      .where(eq(webPushSubscriptions.accessTokenId, owner.tokenId));
    const [row] = await tx.insert(webPushSubscriptions).values({
      accessTokenId: owner.tokenId,
      userId: owner.userId,
      accessToken: owner.token,
      endpoint: input.endpoint!,
      keyP256dh: keys.p256dh,
      keyAuth: keys.auth,
      standard: input.standard ?? false,
      alerts: allowedAlerts(input.data.alerts, owner.role),
      policy,
    }).returning();
    return row;
  });
}

/** The token's subscription, or null. */
export async function findSubscription(
  db: Executor,
  tokenId: string,
): Promise<PushSubscriptionRow | null> {
  const [row] = await db.select().from(webPushSubscriptions)
    .where(eq(webPushSubscriptions.accessTokenId, tokenId)).limit(1);
  return row ?? null;
}

/** Replaces the alerts and policy of the token's subscription; NotFoundError when it has none. */
export async function updateSubscriptionData(
  db: Executor,
  owner: Pick<PushOwner, "tokenId" | "role">,
  data: PushData,
): Promise<PushSubscriptionRow> {
  const problems = new Problems();
  const policy = checkPolicy(data.policy, problems);
  problems.throwIfAny();
  const [row] = await db.update(webPushSubscriptions).set({
    alerts: allowedAlerts(data.alerts, owner.role),
    policy,
    updatedAt: sql`now()`,
  }).where(eq(webPushSubscriptions.accessTokenId, owner.tokenId)).returning();
  if (!row) throw new NotFoundError();
  return row;
}

/** Deletes the token's subscription, if it has one. */
export async function unsubscribe(db: Executor, tokenId: string): Promise<void> {
  await db.delete(webPushSubscriptions).where(eq(webPushSubscriptions.accessTokenId, tokenId));
}

/** Deletes a subscription the push service declared gone (404/410), unless it was replaced. */
export async function dropExpiredSubscription(
  db: Executor,
  subscription: Pick<PushSubscriptionRow, "id" | "endpoint">,
): Promise<void> {
  await db.delete(webPushSubscriptions).where(and(
    eq(webPushSubscriptions.id, subscription.id),
    eq(webPushSubscriptions.endpoint, subscription.endpoint),
  ));
}
