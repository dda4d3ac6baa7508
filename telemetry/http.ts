/**
 * The request histogram's labels. The route is the template of the handler
 * that answered (`/api/v1/statuses/:id`), never the path itself, so the
 * number of series stays bounded; requests no route of ours answered get a
 * name in parentheses saying who did.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
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

/** What a measured request records into. */
export interface RequestTelemetry {
  readonly instruments: Instruments;
  readonly tracer: Tracer;
}

/**
 * Runs `handle` inside a server span and times it into the request
 * histogram, both under the route it reports. The span carries the path,
 * never the query (it can hold an access token); a trace of a client's is
 * not continued (`traceparent` is not trusted).
 */
export function measureRequest(
  telemetry: RequestTelemetry,
  request: Request,
  handle: (record: RouteRecord) => Promise<Response>,
): Promise<Response> {
  const url = new URL(request.url);
  const method = request.method;
  const attributes = {
    "http.request.method": method,
    "url.path": url.pathname,
    "url.scheme": url.protocol.slice(0, -1),
  };
  const options = { kind: SpanKind.SERVER, attributes };
  return telemetry.tracer.startActiveSpan(method, options, ROOT_CONTEXT, async (span) => {
    const started = performance.now();
    const record: RouteRecord = { route: null };
    let status = 500;
    try {
      const response = await handle(record);
      status = response.status;
      return response;
    } catch (error) {
      span.recordException(error as Error);
      throw error;
    } finally {
      const route = record.route ??
        (status === 404 ? ANSWERED_BY.unmatched : ANSWERED_BY.middleware);
      telemetry.instruments.httpDuration.record((performance.now() - started) / 1000, {
        "http.request.method": method,
        "http.route": route,
        "http.response.status_code": status,
      });
      span.updateName(`${method} ${route}`);
      span.setAttributes({ "http.route": route, "http.response.status_code": status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  });
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
    case 503:
      return "key_unreachable";
    default:
      return "invalid";
  }
}
