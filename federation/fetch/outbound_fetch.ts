/**
 * The requests Fedify makes on our behalf that we do not build ourselves:
 * deliveries to inboxes (signed POSTs), WebFinger and NodeInfo lookups.
 * Fedify offers no fetch hook for them, so the process's `fetch` is wrapped
 * once, and a request that is ours (it carries an HTTP signature, or our
 * User-Agent) gets two things Fedify does not give it:
 *
 * - A total deadline, FETCH_TIMEOUT (10 s at most), body included; the
 *   caller's own signal still applies. A peer that accepted the connection
 *   and never answered held a delivery worker for about two minutes (Deno's
 *   fetch has no deadline of its own).
 * - Unless ALLOW_PRIVATE_ADDRESS is set, the connection goes through
 *   actors/net/public_fetch.ts: the name is resolved once, every address
 *   must be public, and the socket connects to exactly what was checked.
 *   Fedify checks a URL (`validatePublicUrl`) and then lets fetch resolve the
 *   name again, so a name that answers public, then loopback (DNS rebinding)
 *   reached this machine's network.
 *
 * Documents are fetched by document_loader.ts and link previews by
 * jobs/link_cards/fetch_page.ts, both with the same guards of their own.
 */
import { publicFetch } from "../../actors/net/public_fetch.ts";

/** Redirects followed for a caller that asked fetch to follow them. */
const MAX_REDIRECTS = 5;

const settings = { deadlineMs: 10_000, allowPrivateAddress: false };
let installed = false;

/**
 * Wraps `globalThis.fetch` (once per process) so that our requests end after
 * `timeoutMs` (FETCH_TIMEOUT) and connect only to checked public addresses;
 * a later call only changes the settings.
 */
export function installOutboundFetch(
  options: { timeoutMs: number; allowPrivateAddress: boolean },
): void {
  settings.deadlineMs = options.timeoutMs;
  settings.allowPrivateAddress = options.allowPrivateAddress;
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!isOurs(request.headers)) return original(request);
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(settings.deadlineMs)]);
    if (settings.allowPrivateAddress) return original(request, { signal });
    return pinnedFetch(request, signal);
  };
}

function isOurs(headers: Headers): boolean {
  return headers.has("signature") || headers.has("signature-input") ||
    (headers.get("user-agent") ?? "").startsWith("Rookery/");
}

/**
 * `request` through public_fetch.ts, with fetch's contract: network errors
 * and refused addresses are TypeErrors, and `redirect: "follow"` (which
 * Fedify never asks for; it checks each hop itself) follows at most five
 * hops of a GET or HEAD, each one checked again.
 */
async function pinnedFetch(request: Request, signal: AbortSignal): Promise<Response> {
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : null;
  const headers = Object.fromEntries(request.headers);
  let url = new URL(request.url);
  for (let hop = 0;; hop++) {
    let response: Response;
    try {
      response = await publicFetch(url, { method: request.method, headers, body, signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new TypeError(`fetch failed: ${url.href}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const location = response.headers.get("location");
    const follow = request.redirect === "follow" && location &&
      response.status >= 300 && response.status < 400 &&
      (request.method === "GET" || request.method === "HEAD");
    if (!follow) return response;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new TypeError(`fetch failed: too many redirects`);
    url = new URL(location, url);
  }
}
