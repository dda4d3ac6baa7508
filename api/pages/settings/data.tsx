/**
 * The data pages of the settings (issue 20): export (a count and a download
 * per CSV) and import (the upload form, and each import's progress). Hono
 * JSX escapes every value; no script. The integrator gives the settings
 * pages one layout later; until then these carry their own small shell.
 */
import type { Child, FC } from "hono/jsx";
import type { ExportKind } from "../../../actors/data/export.ts";
import { IMPORT_KINDS, type ImportProgress, MAX_IMPORT_ROWS } from "../../../actors/data/import.ts";

const STYLE = `
:root{color-scheme:light dark;--fg:#1f232b;--bg:#f3f4f8;--card:#fff;--muted:#5b6170;--accent:#563acc;--danger:#b3261e;--border:#d6d9e0}
@media (prefers-color-scheme:dark){:root{--fg:#e8e9ee;--bg:#17191f;--card:#22252d;--muted:#a7abb6;--accent:#8c8dff;--danger:#ff8a80;--border:#3a3e49}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{display:flex;flex-wrap:wrap;gap:1rem;padding:.75rem 1.5rem;background:var(--card);border-bottom:1px solid var(--border)}
header a{text-decoration:none;margin-right:1rem}header a[aria-current=page]{font-weight:700;text-decoration:underline}
main{max-width:48rem;margin:1.5rem auto;padding:0 1rem}
table{width:100%;border-collapse:collapse;background:var(--card)}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--border)}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
select,input{font:inherit;color:inherit;max-width:100%}
button{font:inherit;font-weight:600;padding:.35rem .9rem;border-radius:.35rem;border:1px solid var(--accent);background:var(--accent);color:#fff;margin-top:1rem}
.alert{border-left:4px solid var(--danger);padding:.5rem .75rem;background:var(--card);color:var(--danger)}
.muted{color:var(--muted)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;

/** The shell of the data pages. */
export const DataLayout: FC<{
  title: string;
  instanceTitle: string;
  current: "export" | "import";
  children?: Child;
}> = ({ title, instanceTitle, current, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{`${title} - ${instanceTitle}`}</title>
      <style dangerouslySetInnerHTML={{ __html: STYLE }} />
    </head>
    <body>
      <header>
        <nav aria-label="Settings">
          <a href="/settings/export" aria-current={current === "export" ? "page" : undefined}>
            Export
          </a>{" "}
          <a href="/settings/import" aria-current={current === "import" ? "page" : undefined}>
            Import
          </a>
        </nav>
      </header>
      <main>
        <h1>{title}</h1>
        {children}
      </main>
    </body>
  </html>
);

/** Each export: the label, the download path and Mastodon's file name. */
export const EXPORTS: { kind: ExportKind; label: string; path: string }[] = [
  { kind: "following_accounts", label: "Follows", path: "follows" },
  { kind: "followers", label: "Followers", path: "followers" },
  { kind: "lists", label: "Lists", path: "lists" },
  { kind: "blocked_accounts", label: "You block", path: "blocks" },
  { kind: "muted_accounts", label: "You mute", path: "mutes" },
  { kind: "blocked_domains", label: "Domain blocks", path: "domain_blocks" },
  { kind: "bookmarks", label: "Bookmarks", path: "bookmarks" },
];

export const ExportPage: FC<{ counts: Record<ExportKind, number> }> = ({ counts }) => (
  <table>
    <caption class="muted">CSV files in Mastodon's formats</caption>
    <thead>
      <tr>
        <th scope="col">Data</th>
        <th scope="col">Rows</th>
        <th scope="col">Download</th>
      </tr>
    </thead>
    <tbody>
      {EXPORTS.map((e) => (
        <tr class={`export-${e.path}`}>
          <th scope="row">{e.label}</th>
          <td class="count">{counts[e.kind]}</td>
          <td>
            <a href={`/settings/exports/${e.path}.csv`} download={`${e.kind}.csv`}>
              {`${e.kind}.csv`}
            </a>
          </td>
        </tr>
      ))}
    </tbody>
  </table>
);

const KIND_LABELS: Record<string, string> = {
  following: "Following list",
  blocking: "Blocking list",
  muting: "Muting list",
  domain_blocking: "Domain blocking list",
  bookmarks: "Bookmarks",
  lists: "Lists",
};

const STATE_LABELS: Record<string, string> = {
  queued: "Waiting",
  running: "In progress",
  finished: "Finished",
};

/** One import's progress, as a table row. */
const ImportRow: FC<{ imp: ImportProgress }> = ({ imp }) => (
  <tr class="import" data-id={imp.id}>
    <td>
      <a href={`/settings/imports/${imp.id}`}>{KIND_LABELS[imp.kind] ?? imp.kind}</a> ({imp.mode})
    </td>
    <td class="state">{STATE_LABELS[imp.state] ?? imp.state}</td>
    <td class="progress">{`${imp.processedRows} / ${imp.totalRows}`}</td>
    <td class="failed">{imp.failedRows}</td>
  </tr>
);

const ImportTable: FC<{ imports: ImportProgress[] }> = ({ imports }) => (
  <table>
    <thead>
      <tr>
        <th scope="col">Import</th>
        <th scope="col">State</th>
        <th scope="col">Rows done / total</th>
        <th scope="col">Failed</th>
      </tr>
    </thead>
    <tbody>{imports.map((imp) => <ImportRow key={imp.id} imp={imp} />)}</tbody>
  </table>
);

export const ImportPage: FC<{
  token: string;
  imports: ImportProgress[];
  alert?: string | null;
  kind?: string;
  mode?: string;
}> = ({ token, imports, alert, kind, mode }) => (
  <>
    {alert ? <p class="alert" role="alert">{alert}</p> : null}
    <form method="post" action="/settings/import" enctype="multipart/form-data" class="import-form">
      <input type="hidden" name="authenticity_token" value={token} />
      <label for="import-type">Import type</label>
      <select id="import-type" name="type">
        {IMPORT_KINDS.map((k) => (
          <option key={k} value={k} selected={k === kind}>{KIND_LABELS[k]}</option>
        ))}
      </select>
      <label for="import-data">CSV file</label>
      <input id="import-data" type="file" name="data" accept=".csv,text/csv" required />
      <fieldset>
        <legend>Mode</legend>
        <label>
          <input type="radio" name="mode" value="merge" checked={mode !== "overwrite"} />{" "}
          Merge: keep what you have and add the file's rows
        </label>
        <label>
          <input type="radio" name="mode" value="overwrite" checked={mode === "overwrite"} />{" "}
          Overwrite: also remove what the file does not list
        </label>
      </fieldset>
      <p class="muted">
        Files exported by Mastodon or Rookery, up to 20 MB and{" "}
        {MAX_IMPORT_ROWS.toLocaleString("en")} rows.
      </p>
      <button type="submit">Upload</button>
    </form>
    {imports.length ? <h2>Recent imports</h2> : null}
    {imports.length ? <ImportTable imports={imports} /> : null}
  </>
);

export const ImportStatusPage: FC<{ imp: ImportProgress }> = ({ imp }) => (
  <>
    <ImportTable imports={[imp]} />
    <p class="muted">
      {imp.state === "finished"
        ? "The import is done. Rows that failed named an account, domain or post that could not be found or acted on."
        : "The import runs in the background: reload this page to see its progress."}
    </p>
    <p>
      <a href="/settings/import">Back to imports</a>
    </p>
  </>
);
