/**
 * The web app's search page (design 35 §11.4): a search form, then the
 * results in three sections (accounts, hashtags, posts), five each with a
 * "More" link to the section alone, which pages by offset.
 */
import type { FC } from "hono/jsx";
import type { Account } from "../../../api/entities/account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { TagJson } from "../../../api/entities/tag.ts";
import type { AppViewer } from "./layout.tsx";
import { AccountRow } from "./accounts_list.tsx";
import { StatusItem } from "./status.tsx";
import { tagPath } from "../status/links.ts";

export type SearchKind = "accounts" | "hashtags" | "statuses";

export interface SearchResults {
  accounts: Account[];
  statuses: StatusJson[];
  hashtags: TagJson[];
}

const LABELS: Record<SearchKind, string> = {
  accounts: "People",
  hashtags: "Hashtags",
  statuses: "Posts",
};

export const SearchForm: FC<{ q: string; type?: SearchKind }> = ({ q, type }) => (
  <form role="search" method="get" action="/search" class="search">
    <label for="search-q">Search for people, hashtags, posts, a handle or a link</label>
    <input type="search" id="search-q" name="q" value={q} maxlength={500} />
    <label for="search-type">Show</label>
    <select id="search-type" name="type">
      <option value="" selected={!type}>Everything</option>
      {(Object.keys(LABELS) as SearchKind[]).map((kind) => (
        <option value={kind} selected={type === kind}>{LABELS[kind]}</option>
      ))}
    </select>
    <button type="submit">Search</button>
    <details>
      <summary>Search tips</summary>
      <p>
        A handle such as <code>@name@example.social</code>{" "}
        or a post's link is looked up on its server. In posts, <code>from:name</code>,{" "}
        <code>has:media</code>, <code>is:reply</code>, <code>before:2026-01-31</code>,{" "}
        <code>"exact words"</code> and <code>-word</code> narrow the search.
      </p>
    </details>
  </form>
);

/** One section of results; `more` is the link to the section alone, when it has more. */
const Section: FC<{
  kind: SearchKind;
  results: SearchResults;
  viewer: AppViewer;
  here: string;
  more: string | null;
}> = ({ kind, results, viewer, here, more }) => (
  <section aria-labelledby={`results-${kind}`}>
    <h2 id={`results-${kind}`}>{LABELS[kind]}</h2>
    {kind === "accounts"
      ? (
        <ul class="accounts">
          {results.accounts.map((account) => {
            // Hono's precompiled JSX would print a `key` as an attribute.
            // deno-lint-ignore jsx-key
            return <AccountRow account={account} />;
          })}
        </ul>
      )
      : kind === "hashtags"
      ? (
        <ul class="tags">
          {results.hashtags.map((tag) => (
            <li>
              <a href={tagPath(tag.name)}>#{tag.name}</a>
            </li>
          ))}
        </ul>
      )
      : (
        <div class="feed">
          {results.statuses.map((status) => (
            <StatusItem status={status} viewer={viewer} here={here} />
          ))}
        </div>
      )}
    {more ? <a href={more}>More {LABELS[kind].toLowerCase()}</a> : null}
  </section>
);

export const SearchResultsView: FC<{
  results: SearchResults;
  viewer: AppViewer;
  here: string;
  /** The kinds shown, and the link to more of each (or null). */
  sections: { kind: SearchKind; more: string | null }[];
}> = ({ results, viewer, here, sections }) => {
  const shown = sections.filter((s) => results[s.kind].length > 0);
  if (shown.length === 0) return <p>Nothing found.</p>;
  return (
    <>
      {shown.map((s) => (
        <Section kind={s.kind} results={results} viewer={viewer} here={here} more={s.more} />
      ))}
    </>
  );
};
