/**
 * Sends one push message: encrypts the payload for the subscription with
 * the `web-push` library (RFC 8291 `aes128gcm` with an RFC 8292 `vapid t=…,
 * k=…` Authorization when the subscription is `standard`, the legacy
 * `aesgcm` draft with `Encryption`/`Crypto-Key` headers and a `WebPush`
 * Authorization otherwise), then POSTs it with our own fetch: through the
 * SSRF guard (actors/net/public_fetch.ts), so a push endpoint on a private
 * or loopback address is refused unless ALLOW_PRIVATE_ADDRESS is set.
 * `generateRequestDetails` builds headers and body without sending.
 * web-push is imported on the first message, not at start (about 11 MiB).
 */
// @ts-types="@types/web-push"
import type webpushModule from "web-push";
import { publicFetch, RefusedAddressError } from "../../actors/net/public_fetch.ts";
import { productUserAgent } from "../../version.ts";
import type { VapidKeys } from "../../actors/push/vapid.ts";

/** Mastodon's TTL: a message not delivered within 48 hours is dropped by the push service. */
export const PUSH_TTL_SECONDS = 48 * 60 * 60;

/** What became of one message. */
export type SendOutcome =
  | { kind: "sent" }
  /** 404 or 410: the subscription is gone (the user unsubscribed, the app was removed). */
  | { kind: "gone"; status: number }
  /** 429, 5xx or a network failure: try again later (after `retryAfterMs` when the service said). */
  | { kind: "retry"; reason: string; retryAfterMs: number | null }
  /** Anything else (another 4xx, a refused address): not worth retrying. */
  | { kind: "dropped"; reason: string };

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
  standard: boolean;
}

export interface SendOptions {
  vapid: VapidKeys;
  /** `mailto:` or https URL the push service may contact (RFC 8292 `sub`). */
  subject: string;
  urgency: "very-low" | "low" | "normal" | "high";
  allowPrivateAddress: boolean;
  timeoutMs: number;
  origin: string;
}

/** Retry-After as milliseconds (seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/** web-push, loaded at the first push (the module registry keeps it after). */
async function loadWebPush(): Promise<typeof webpushModule> {
  return (await import("web-push")).default as typeof webpushModule;
}

/** Encrypts and sends `payload` to the subscription. Never throws for the push service's answers. */
export async function sendPush(
  target: PushTarget,
  payload: string,
  options: SendOptions,
): Promise<SendOutcome> {
  const webpush = await loadWebPush();
  const details = webpush.generateRequestDetails(
    { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
    payload,
    {
      vapidDetails: {
        subject: options.subject,
        publicKey: options.vapid.publicKey,
        privateKey: options.vapid.privateKey,
      },
      TTL: PUSH_TTL_SECONDS,
      urgency: options.urgency,
      contentEncoding: target.standard ? "aes128gcm" : "aesgcm",
    },
  );
  const headers: Record<string, string> = {
    "User-Agent": productUserAgent(options.origin),
  };
  for (const [name, value] of Object.entries(details.headers)) {
    // publicFetch sets the length of the body it sends.
    if (name.toLowerCase() !== "content-length") headers[name] = String(value);
  }
  const body = new Uint8Array(details.body);
  const url = new URL(target.endpoint);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  try {
    response = options.allowPrivateAddress
      ? await fetch(url, { method: "POST", headers, body, redirect: "manual", signal })
      : await publicFetch(url, { method: "POST", headers, body, signal });
  } catch (error) {
    if (error instanceof RefusedAddressError) {
      return { kind: "dropped", reason: `refused address (${error.message})` };
    }
    return { kind: "retry", reason: String(error), retryAfterMs: null };
  }
  await response.body?.cancel().catch(() => {});
  const status = response.status;
  if (status >= 200 && status < 300) return { kind: "sent" };
  if (status === 404 || status === 410) return { kind: "gone", status };
  if (status === 429 || status >= 500) {
    return {
      kind: "retry",
      reason: `HTTP ${status}`,
      retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
    };
  }
  return { kind: "dropped", reason: `HTTP ${status}` };
}
