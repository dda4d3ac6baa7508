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

/** Marks a guard's fetch with the fetch under every guard. */
const UNGUARDED = Symbol("rookery.unguardedFetch");
type Guarded = typeof fetch & { [UNGUARDED]?: typeof fetch };

/** The guard's settings (FETCH_TIMEOUT, ALLOW_PRIVATE_ADDRESS). */
export interface OutboundFetchOptions {
  timeoutMs: number;
  allowPrivateAddress: boolean;
}

/**
 * `globalThis.fetch` wrapped so that our requests end after `timeoutMs` and
 * connect only to checked public addresses. The process core installs one
 * and uninstalls it as it closes. `fetch` is the process's, so with several
 * instances in one process (tests) each wraps the one before: the outermost
 * guards our requests (as the one wrapper of old did with the last settings
 * given) and sends them to the fetch under all guards, a guard closed while
 * a later one still wraps it stops guarding, and the last one out puts back
 * the fetch it found.
 */
export class OutboundFetchGuard {
  readonly #wrapped: typeof fetch;
  readonly #fetch: typeof fetch;
  #active = true;

  private constructor(options: OutboundFetchOptions) {
    const wrapped = this.#wrapped = globalThis.fetch;
    const base = (wrapped as Guarded)[UNGUARDED] ?? wrapped;
    const guarded: Guarded = (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      if (!this.#active || !isOurs(request.headers)) return wrapped(request);
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
      if (options.allowPrivateAddress) return base(request, { signal });
      return pinnedFetch(request, signal);
    };
    guarded[UNGUARDED] = base;
    this.#fetch = guarded;
  }

  /** Wraps the process's fetch. */
  static install(options: OutboundFetchOptions): OutboundFetchGuard {
    const guard = new OutboundFetchGuard(options);
    globalThis.fetch = guard.#fetch;
    return guard;
  }

  /** Stops guarding; puts the fetch it wrapped back when nothing wrapped it since. */
  uninstall(): void {
    this.#active = false;
    if (globalThis.fetch === this.#fetch) globalThis.fetch = this.#wrapped;
  }
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
