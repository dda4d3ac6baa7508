/**
 * The request histogram's labels. The route is the template of the handler
 * that answered (`/api/v1/statuses/:id`), never the path itself, so the
 * number of series stays bounded; requests no route of ours answered get a
 * name in parentheses saying who did.
 */
import type { Instruments } from "./instruments.ts";

/** Filled while a request is handled: app.ts writes the route once routed. */
export interface RouteRecord {
  route: string | null;
}

/** Who answered when no route of the application did. */
export const ANSWERED_BY = {
  /** Fedify's routes (actors, inboxes, WebFinger, NodeInfo…). */
  federation: "(federation)",
  /** The inbox guard refused the delivery before Fedify saw it. */
  inbox: "(inbox)",
  /** A request for another host name (federation/request_host.ts). */
  host: "(host)",
  /** A middleware (CORS preflight, rate limit, IP block, a GET body too large). */
  middleware: "(middleware)",
  /** No route: 404. */
  unmatched: "(unmatched)",
} as const;

/** Times `handle` and records it under the route it reports. */
export async function measureRequest(
  instruments: Instruments,
  method: string,
  handle: (record: RouteRecord) => Promise<Response>,
): Promise<Response> {
  const started = performance.now();
  const record: RouteRecord = { route: null };
  let status = 500;
  try {
    const response = await handle(record);
    status = response.status;
    return response;
  } finally {
    instruments.httpDuration.record((performance.now() - started) / 1000, {
      "http.request.method": method,
      "http.route": record.route ??
        (status === 404 ? ANSWERED_BY.unmatched : ANSWERED_BY.middleware),
      "http.response.status_code": status,
    });
  }
}

/** Why the inbox guard refused a delivery, from its answer's status. */
export function refusalReason(status: number): string {
  switch (status) {
    case 401:
      return "signature";
    case 403:
      return "blocked";
    case 413:
      return "too_large";
    default:
      return "invalid";
  }
}
