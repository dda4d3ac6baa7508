/**
 * The data pages of the settings (issue 20): export (a count and a download
 * per CSV) and import (the upload form, and each import's progress). Hono
 * JSX escapes every value; no script.
 */
import type { FC } from "hono/jsx";
import type { ExportKind } from "../../../actors/import_export/export.ts";
import {
  IMPORT_KINDS,
  type ImportProgress,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ROWS,
} from "../../../actors/import_export/import.ts";

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

export const ExportPage: FC<{ counts: Record<ExportKind, number> & { filters: number } }> = (
  { counts },
) => (
  <table>
    <caption class="muted">Files in Mastodon's formats</caption>
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
      <tr class="export-custom_filters">
        <th scope="row">Filters</th>
        <td class="count">{counts.filters}</td>
        <td>
          <a href="/settings/exports/custom_filters.json" download="custom_filters.json">
            custom_filters.json
          </a>
        </td>
      </tr>
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
  custom_filters: "Filters (custom_filters.json)",
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
      <input
        id="import-data"
        type="file"
        name="data"
        accept=".csv,text/csv,.json,application/json"
        required
      />
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
        Files exported by Mastodon or Rookery, up to {MAX_IMPORT_BYTES / (1024 * 1024)} MB and{" "}
        {MAX_IMPORT_ROWS.toLocaleString("en")} rows, one import at a time.
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
