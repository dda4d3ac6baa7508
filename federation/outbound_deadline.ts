/**
 * A deadline for the requests Fedify makes on our behalf that we do not
 * build ourselves: deliveries to inboxes (signed POSTs), WebFinger and
 * NodeInfo lookups. Fedify offers no timeout or fetch hook for them, and a
 * peer that accepts the connection and never answers held a delivery worker
 * for about two minutes (Deno's fetch has no deadline of its own).
 *
 * So the process's `fetch` is wrapped once: a request that is ours (it
 * carries an HTTP signature, or our User-Agent) is aborted after
 * FETCH_TIMEOUT (10 s at most), body included; the caller's own signal still
 * applies. Documents are fetched by document_loader.ts, which has the same
 * deadline of its own; link previews by actors/cards/fetch_page.ts.
 */

let installed = false;
let deadlineMs = 10_000;

/**
 * Wraps `globalThis.fetch` (once per process) so that our requests end after
 * `timeoutMs` (FETCH_TIMEOUT); a later call only changes the deadline.
 */
export function installOutboundDeadline(timeoutMs: number): void {
  deadlineMs = timeoutMs;
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!isOurs(request.headers)) return original(request);
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(deadlineMs)]);
    return original(request, { signal });
  };
}

function isOurs(headers: Headers): boolean {
  return headers.has("signature") || headers.has("signature-input") ||
    (headers.get("user-agent") ?? "").startsWith("Rookery/");
}
