/**
 * The web app's search (design 35 §2.5, §11.4): GET /search?q=&type=&offset=
 * reads through the API's search (api/reads/search.ts, v2), as the viewer
 * may find things; a handle or an http(s) link is resolved on its server
 * (`resolve=true`), and when that finds exactly one account or post the
 * answer is a 303 to its page here. Everything: five of each kind with a
 * "More" link; one kind: 20 a page, paged by `offset`. A query the API
 * refuses is said on the page (422), never a 500.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { readString } from "../../../api/readers.ts";
import { ApiError } from "../../../api/errors.ts";
import { readSearch } from "../../../api/reads/search.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import {
  SearchForm,
  type SearchKind,
  type SearchResults,
  SearchResultsView,
} from "../../pages/app/search.tsx";
import { Pager } from "../../pages/app/pager.tsx";
import { accountPath, statusPath } from "../../pages/status/links.ts";
import { appPage, appReader, sendAppPage } from "./session.tsx";
import { hereWith } from "./return_to.ts";

const KINDS: readonly SearchKind[] = ["accounts", "hashtags", "statuses"];
/** Results of each kind when all are shown, and of one kind a page. */
const PREVIEW = 5;
const PAGE = 20;

/** Whether the query names something elsewhere: a handle or a link. */
function resolvable(q: string): boolean {
  return /^https?:\/\//i.test(q) || /^@?[^\s@:]+@[^\s@]+$/.test(q);
}

/** The one account or post a resolved query found, as a path here. */
function singleHit(results: SearchResults): string | null {
  const [account] = results.accounts;
  const [status] = results.statuses;
  if (results.accounts.length + results.statuses.length + results.hashtags.length !== 1) {
    return null;
  }
  return account ? accountPath(account) : status ? statusPath(status) : null;
}

function searchHref(q: string, type: SearchKind, offset = 0): string {
  const query = new URLSearchParams({ q, type });
  if (offset) query.set("offset", String(offset));
  return `/search?${query}`;
}

async function searchPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { viewer } = await appReader(c);
  const p = await params(c);
  const q = (readString(p, "q", { allowBlank: true, maxLength: 10_000 }) ?? "").trim();
  const typeParam = readString(p, "type");
  const type = KINDS.find((k) => k === typeParam);
  const offset = Math.max(0, Math.min(Number(readString(p, "offset")) || 0, 10_000));
  let results: SearchResults | null = null;
  let error: string | null = null;
  if (q) {
    try {
      results = await readSearch(ctx, viewer.accountId, {
        q,
        resolve: resolvable(q) ? "true" : "false",
        limit: String(type ? PAGE : PREVIEW),
        ...(type ? { type, offset: String(offset) } : {}),
      });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      error = err.message;
    }
  }
  const hit = results && resolvable(q) && !type ? singleHit(results) : null;
  if (hit) return c.redirect(hit, 303);
  const here = hereWith(c.req.url);
  const sections = (type ? [type] : KINDS).map((kind) => ({
    kind,
    more: type || !results || results[kind].length < PREVIEW ? null : searchHref(q, kind),
  }));
  const pager = type && results
    ? {
      newer: offset > 0 ? searchHref(q, type, Math.max(0, offset - PAGE)) : null,
      older: results[type].length >= PAGE ? searchHref(q, type, offset + PAGE) : null,
    }
    : { newer: null, older: null };
  return await sendAppPage(
    c,
    <AppLayout
      title={q ? `Search: ${q.slice(0, 100)}` : "Search"}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="search"
    >
      <SearchForm q={q} type={type} />
      {error ? <p class="alert" role="alert">{error}</p> : null}
      {results
        ? <SearchResultsView results={results} viewer={viewer} here={here} sections={sections} />
        : null}
      <Pager links={pager} />
    </AppLayout>,
    error ? 422 : 200,
  );
}

export function appSearchRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/search", appPage(), searchPage);
  return app;
}
