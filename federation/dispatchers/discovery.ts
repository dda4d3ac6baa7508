/**
 * Discovery documents around Fedify's own: `/.well-known/host-meta` (XRD and
 * JSON), NodeInfo 2.0 next to Fedify's 2.1, and Mastodon's shape of the
 * WebFinger document.
 *
 * These wrap `federation.fetch` because every non-API request reaches Fedify
 * first (app.ts) and Fedify's WebFinger and NodeInfo responses have no
 * hook for extra aliases or a second NodeInfo version.
 */
import type { Federation, FederationFetchOptions } from "@fedify/fedify";
import type { AppContext } from "../../context.ts";
import { buildNodeInfo, nodeInfo20Json, NODEINFO_20_PATH } from "./nodeinfo.ts";
import { completeWebFingerJrd } from "./webfinger.ts";

const NODEINFO_20_REL = "http://nodeinfo.diaspora.software/ns/schema/2.0";
const NODEINFO_20_TYPE =
  'application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.0#"';

/** Makes `federation.fetch` answer the documents above, then defer to Fedify. */
export function installDiscoveryDocuments(federation: Federation<AppContext>): void {
  const fedifyFetch = federation.fetch.bind(federation);
  federation.fetch = async (request: Request, options: FederationFetchOptions<AppContext>) => {
    const url = new URL(request.url);
    const app = options.contextData;
    if (request.method === "GET" || request.method === "HEAD") {
      switch (url.pathname) {
        case "/.well-known/host-meta":
          return hostMetaXrd(app.config.origin);
        case "/.well-known/host-meta.json":
          return hostMetaJson(app.config.origin);
        case NODEINFO_20_PATH:
          return Response.json(nodeInfo20Json(await buildNodeInfo(app)), {
            headers: { "Content-Type": NODEINFO_20_TYPE },
          });
      }
    }
    const response = await fedifyFetch(request, options);
    if (!response.ok || request.method !== "GET") return response;
    if (url.pathname === "/.well-known/webfinger") {
      return await rewriteJson(response, completeWebFingerJrd);
    }
    if (url.pathname === "/.well-known/nodeinfo") {
      return await rewriteJson(response, (jrd: { links: Record<string, string>[] }) => ({
        links: [
          {
            rel: NODEINFO_20_REL,
            href: new URL(NODEINFO_20_PATH, app.config.origin).href,
            type: NODEINFO_20_TYPE,
          },
          ...jrd.links,
        ],
      }));
    }
    return response;
  };
}

/** Replaces a JSON body, keeping status and headers (CORS, content type). */
async function rewriteJson<T>(response: Response, change: (body: T) => unknown): Promise<Response> {
  const body = change(await response.json() as T);
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

function lrddTemplate(origin: string): string {
  return `${origin}/.well-known/webfinger?resource={uri}`;
}

function hostMetaXrd(origin: string): Response {
  const template = lrddTemplate(origin).replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">
  <Link rel="lrdd" template="${template}"/>
</XRD>
`;
  return new Response(xml, { headers: { "Content-Type": "application/xrd+xml; charset=utf-8" } });
}

function hostMetaJson(origin: string): Response {
  return Response.json(
    { links: [{ rel: "lrdd", template: lrddTemplate(origin) }] },
    { headers: { "Content-Type": "application/json" } },
  );
}
