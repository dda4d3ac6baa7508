import assert from "node:assert/strict";
import { Hono } from "hono";
import type { AppContext } from "../../context.ts";
import type { ApiEnv } from "../../api/env.ts";
import { installErrorHandlers } from "../../api/errors.ts";
import { params } from "../../api/params.ts";
import {
  buildLinkHeader,
  clampLimit,
  PAGE_SIZES,
  pageParamsFromQuery,
  readPageParams,
  setPaginationHeaders,
} from "../../api/pagination.ts";
import { json, test } from "../harness.ts";

const ORIGIN = "https://social.example";

/** Ids 100..1, newest first, paged like a timeline. */
const ITEMS = Array.from({ length: 100 }, (_, i) => String(100 - i));

function listApp(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  installErrorHandlers(app);
  app.use(async (c, next) => {
    c.set("ctx", {
      config: { origin: ORIGIN, limits: { maxBodyBytes: 1 << 20 } },
    } as unknown as AppContext);
    await next();
  });
  app.get("/api/v1/timelines/public", async (c) => {
    const page = readPageParams(await params(c), PAGE_SIZES.timelines);
    let rows = ITEMS.filter((id) =>
      (!page.maxId || BigInt(id) < BigInt(page.maxId)) &&
      (!page.sinceId || BigInt(id) > BigInt(page.sinceId)) &&
      (!page.minId || BigInt(id) > BigInt(page.minId))
    );
    // min_id pages are the ones immediately above it: take from the old end.
    rows = page.minId ? rows.slice(-page.limit) : rows.slice(0, page.limit);
    setPaginationHeaders(c, rows, (id) => id);
    return c.json({ page, rows });
  });
  app.get("/api/v1/blocks", (c) => {
    const page = pageParamsFromQuery(c, PAGE_SIZES.accounts);
    const rows = ITEMS.slice(0, page.limit);
    setPaginationHeaders(c, rows, (id) => id, { prevParam: "since_id", hasMore: false });
    return c.json({ page });
  });
  app.get("/api/v1/empty", (c) => {
    setPaginationHeaders(c, [], (id: string) => id);
    return c.json([]);
  });
  app.get("/raw", (c) => {
    const header = buildLinkHeader(c, { next: "5", prev: null });
    return c.json({ header });
  });
  return app;
}

function parseLink(header: string | null): Record<string, URL> {
  assert.ok(header, "expected a Link header");
  const out: Record<string, URL> = {};
  for (const part of header.split(", ")) {
    const m = /^<([^>]+)>; rel="(next|prev)"$/.exec(part);
    assert.ok(m, `malformed Link entry: ${part}`);
    out[m[2]] = new URL(m[1]);
  }
  return out;
}

test("pagination: Link header has next (max_id) and prev (min_id) on the configured origin", async () => {
  const res = await listApp().request(
    "http://internal-host:8080/api/v1/timelines/public?limit=2&local=true",
    { headers: { host: "evil.example" } },
  );
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.deepEqual(body.rows, ["100", "99"]);
  const header = res.headers.get("link");
  assert.equal(
    header,
    `<${ORIGIN}/api/v1/timelines/public?limit=2&local=true&max_id=99>; rel="next", ` +
      `<${ORIGIN}/api/v1/timelines/public?limit=2&local=true&min_id=100>; rel="prev"`,
  );
});

test("pagination: following the links walks the list; old cursors are replaced, array params kept", async () => {
  const app = listApp();
  const first = await app.request(
    "/api/v1/timelines/public?limit=3&types[]=a&types[]=b&max_id=50&since_id=10",
  );
  const body = await json(first);
  assert.deepEqual(body.rows, ["49", "48", "47"]);
  assert.equal(body.page.sinceId, "10");
  const links = parseLink(first.headers.get("link"));
  assert.equal(links.next.searchParams.get("max_id"), "47");
  assert.deepEqual(links.next.searchParams.getAll("types[]"), ["a", "b"]);
  assert.equal(links.next.searchParams.get("limit"), "3");
  // The old cursors are not repeated in the new URLs.
  assert.equal(links.next.searchParams.getAll("max_id").length, 1);
  assert.equal(links.next.searchParams.get("since_id"), null);
  assert.equal(links.prev.searchParams.get("min_id"), "49");
  assert.equal(links.prev.searchParams.get("max_id"), null);

  const next = await app.request(links.next.pathname + links.next.search);
  assert.deepEqual((await json(next)).rows, ["46", "45", "44"]);
  const prev = await app.request(links.prev.pathname + links.prev.search);
  assert.deepEqual((await json(prev)).rows, ["52", "51", "50"]);
});

test("pagination: since_id variant for older lists, no next when the list ended, none when empty", async () => {
  const app = listApp();
  const res = await app.request("/api/v1/blocks?limit=2");
  assert.equal(
    res.headers.get("link"),
    `<${ORIGIN}/api/v1/blocks?limit=2&since_id=100>; rel="prev"`,
  );
  const empty = await app.request("/api/v1/empty");
  assert.equal(empty.headers.get("link"), null);
  const raw = await json(await app.request("/raw?max_id=9&foo=bar"));
  assert.equal(raw.header, `<${ORIGIN}/raw?foo=bar&max_id=5>; rel="next"`);
});

test("pagination: limit defaults and clamping per preset", async () => {
  const app = listApp();
  const limitOf = async (q: string) =>
    (await json(await app.request(`/api/v1/timelines/public${q}`))).page.limit;
  assert.equal(await limitOf(""), 20);
  assert.equal(await limitOf("?limit=5"), 5);
  assert.equal(await limitOf("?limit=40"), 40);
  assert.equal(await limitOf("?limit=1000"), 40);
  assert.equal(await limitOf("?limit=-3"), 3);
  assert.equal(await limitOf("?limit=0"), 20);
  assert.equal(await limitOf("?limit=abc"), 20);
  assert.equal(await limitOf("?limit="), 20);
  const blocks = async (q: string) =>
    (await json(await app.request(`/api/v1/blocks${q}`))).page.limit;
  assert.equal(await blocks(""), 40);
  assert.equal(await blocks("?limit=500"), 80);

  assert.deepEqual(
    Object.fromEntries(Object.entries(PAGE_SIZES).map(([k, v]) => [k, [v.default, v.max]])),
    {
      timelines: [20, 40],
      statuses: [20, 40],
      scheduledStatuses: [20, 40],
      conversations: [20, 40],
      favourites: [20, 40],
      bookmarks: [20, 40],
      accounts: [40, 80],
      notifications: [40, 80],
      groupedNotifications: [40, 80],
      notificationRequests: [40, 80],
      unreadCount: [100, 1000],
      followedTags: [100, 200],
      domainBlocks: [100, 200],
      admin: [100, 200],
      trends: [10, 20],
      trendStatuses: [20, 40],
      search: [20, 40],
    },
  );
  assert.equal(clampLimit(2000, PAGE_SIZES.unreadCount), 1000);
  assert.equal(clampLimit("7.9", PAGE_SIZES.trends), 7);
});

test("pagination: malformed ids are ignored rather than failing the request", async () => {
  const res = await listApp().request(
    "/api/v1/timelines/public?max_id=abc&since_id=99999999999999999999999&min_id=-5&limit=2",
  );
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.deepEqual(body.page, { maxId: null, sinceId: null, minId: null, limit: 2 });
  assert.deepEqual(body.rows, ["100", "99"]);
});
