/**
 * Set-up for the preview card tests: a small web server on loopback that
 * serves the pages links point at and records every request it gets, and
 * bounded waits for the background job.
 */
import { sql } from "drizzle-orm";
import type { TestInstance } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { eventually } from "../fixtures/wait.ts";
import type { TestUser } from "../fixtures/users.ts";

export const OG_PAGE = `<!doctype html><html><head>
<title>Ignored when og:title is there</title>
<meta property="og:title" content="Fish &amp; Chips">
<meta property="og:description" content="All about &lt;fish&gt;.">
<meta property="og:image" content="/img/cover.png">
<meta property="og:image:width" content="640">
<meta property="og:image:height" content="480">
<meta property="og:site_name" content="The Paper">
<meta property="og:type" content="article">
</head><body><p>Story</p></body></html>`;

export interface PageServer {
  /** http://127.0.0.1:port */
  base: string;
  /** Every request seen: path with query, and headers. */
  requests: { path: string; userAgent: string; accept: string }[];
  /** How many times `path` (with query) was requested. */
  count(path: string): number;
  close(): Promise<void>;
}

/** One chunk of the endless page. */
const FILLER = new TextEncoder().encode("<p>" + "x".repeat(64 * 1024) + "</p>");

function html(body: string, status = 200): Response {
  return new Response(body, { status, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

/**
 * Starts the page server. Paths: /og (OpenGraph), /plain (<title> and meta
 * description only), /notitle, /json (not HTML), /huge (a title, then body
 * without end), /redirect (302 to /second), /loop (redirects forever),
 * /missing (404), /creator/:handle (names `fediverse:creator`). The query string is ignored, so `?tag` gives distinct URLs.
 */
export function startPageServer(): Promise<PageServer> {
  const requests: PageServer["requests"] = [];
  const { promise, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    onListen: ({ port }) => resolve(port),
  }, (req) => {
    const url = new URL(req.url);
    requests.push({
      path: url.pathname + url.search,
      userAgent: req.headers.get("user-agent") ?? "",
      accept: req.headers.get("accept") ?? "",
    });
    if (url.pathname.startsWith("/creator/")) {
      // A page whose author names themselves (`fediverse:creator`).
      const handle = decodeURIComponent(url.pathname.slice("/creator/".length));
      return html(
        `<head><meta property="og:title" content="By ${handle}">` +
          `<meta name="fediverse:creator" content="@${handle}"></head>`,
      );
    }
    switch (url.pathname) {
      case "/og":
        return html(OG_PAGE);
      case "/plain":
        return html(
          '<html><head><title> Plain  page </title><meta name="description" content="Said plainly">' +
            "</head></html>",
        );
      case "/second":
        return html('<head><meta property="og:title" content="Second page"></head>');
      case "/notitle":
        return html("<html><head><meta name=description content=nothing></head></html>");
      case "/json":
        return Response.json({ title: "not html" });
      case "/huge": {
        let sent = 0;
        const head = new TextEncoder().encode(
          '<html><head><meta property="og:title" content="Huge page"></head><body>',
        );
        return new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              controller.enqueue(sent++ === 0 ? head : FILLER);
            },
          }),
          { headers: { "Content-Type": "text/html" } },
        );
      }
      case "/redirect":
        return new Response(null, { status: 302, headers: { Location: "/second" } });
      case "/loop":
        return new Response(null, { status: 301, headers: { Location: `/loop?${Math.random()}` } });
      default:
        return html("<title>Not found</title>", 404);
    }
  });
  return promise.then((port) => ({
    base: `http://127.0.0.1:${port}`,
    requests,
    count: (path) => requests.filter((r) => r.path === path).length,
    close: () => server.shutdown(),
  }));
}

/** GET /api/v1/statuses/:id as `user`. */
export async function getStatus(instance: TestInstance, user: TestUser, id: string) {
  return (await callJson(instance, user, "GET", `/api/v1/statuses/${id}`)).body;
}

/** Waits until the status's card passes `ok` (default: there is a card); returns the card. */
export function waitForCard(
  instance: TestInstance,
  user: TestUser,
  id: string,
  ok: (card: any) => boolean = (card) => card != null,
): Promise<any> {
  return eventually(`the card of ${id}`, async () => {
    const { card } = await getStatus(instance, user, id);
    return ok(card) ? card : undefined;
  }, 15_000);
}

/** Waits until no job is queued or running. */
export function jobsDrained(instance: TestInstance): Promise<true> {
  return eventually("the card jobs to finish", async () => {
    const [row] = await instance.rookery.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM federation_queue WHERE message->>'type' = 'rookery:job'`,
    );
    return row.n === 0 ? true : undefined;
  }, 15_000);
}
