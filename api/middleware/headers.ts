/** Adding headers to a response that may have come from elsewhere (Fedify, fetch). */
import type { Context } from "hono";

/**
 * Sets headers on `c.res`. Responses built by `fetch` or by other libraries
 * can have immutable headers; those are copied into a new Response first.
 */
export function setResponseHeaders(c: Context<any>, headers: Record<string, string>): void {
  try {
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  } catch {
    const res = new Response(c.res.body, c.res);
    for (const [k, v] of Object.entries(headers)) res.headers.set(k, v);
    c.res = res;
  }
}
