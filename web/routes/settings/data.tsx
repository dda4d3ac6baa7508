/**
 * The data pages of the settings (issue 20), for the signed-in user:
 * - GET /settings/export: each CSV's row count and its download;
 * - GET /settings/exports/custom_filters.json: the filters, as JSON (Mastodon 4.7);
 * - GET /settings/exports/<follows|followers|lists|blocks|mutes|domain_blocks|bookmarks>.csv:
 *   the file (actors/import_export/export.ts), streamed a page of rows at a time;
 * - GET /settings/import: the upload form and the latest imports;
 * - POST /settings/import: refused before the body is read while another
 *   import of the user is unfinished or when it is over the cap; then reads
 *   and checks the file, records it with its import job
 *   (actors/import_export/import.ts; jobs/data_import.ts runs it);
 * - GET /settings/imports/:id: one import's progress (someone else's: 404).
 */
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { isId } from "../../../db/ids.ts";
import { exportCounts, exportCsv } from "../../../actors/import_export/export.ts";
import { countFilters, exportFilters } from "../../../actors/import_export/filters_export.ts";
import { parseFiltersJson } from "../../../actors/import_export/filters_import.ts";
import {
  createImport,
  findOwnImport,
  hasUnfinishedImport,
  IMPORT_IN_PROGRESS,
  IMPORT_KINDS,
  IMPORT_MODES,
  ImportFileError,
  type ImportKind,
  type ImportMode,
  MAX_IMPORT_BODY_BYTES,
  MAX_IMPORT_BYTES,
  parseImportCsv,
  recentImports,
} from "../../../actors/import_export/import.ts";
import type { WebSession } from "../../../actors/auth/sessions.ts";
import { ApiError } from "../../../api/errors.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { SettingsLayout } from "../../pages/settings/layout.tsx";
import { ExportPage, EXPORTS, ImportPage, ImportStatusPage } from "../../pages/settings/data.tsx";
import { sendUserPage, settingsSession, setUserPageHeaders, userPage } from "./session.ts";

function layout(
  c: Context<ApiEnv>,
  title: string,
  current: "export" | "import",
  body: Child,
  session: WebSession = settingsSession(c),
) {
  return (
    <SettingsLayout
      title={title}
      instanceTitle={c.get("ctx").config.instance.title}
      section={current}
      viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
    >
      {body}
    </SettingsLayout>
  );
}

/** The upload form and the latest imports; with `refused`, why a file was not taken. */
async function importPage(
  c: Context<ApiEnv>,
  refused?: { message: string; status: 413 | 422; kind?: string; mode?: string },
  session: WebSession = settingsSession(c),
): Promise<Response> {
  const imports = await recentImports(c.get("ctx").database.db, session.user.accountId);
  return await sendUserPage(
    c,
    layout(
      c,
      "Import",
      "import",
      <ImportPage
        token={session.csrfToken}
        imports={imports}
        alert={refused?.message}
        kind={refused?.kind}
        mode={refused?.mode}
      />,
      session,
    ),
    refused?.status ?? 200,
  );
}

/** What the upload's 413 says. */
const TOO_LARGE = `The file is larger than ${MAX_IMPORT_BYTES / (1024 * 1024)} MB.`;

/**
 * Refuses an upload before its body is read (userPage's `beforeBody`): while
 * an import of the user is unfinished (one at a time), and when the body is
 * over the import's cap (read with that limit, not the server's 110 MB, so
 * a bigger file is never held in memory). Both pages are the upload form with
 * the reason.
 */
async function refuseUploadEarly(
  c: Context<ApiEnv>,
  session: WebSession,
): Promise<Response | null> {
  if (c.req.method !== "POST") return null;
  const refuse = (message: string, status: 413 | 422) =>
    importPage(c, { message, status }, session);
  if (await hasUnfinishedImport(c.get("ctx").database.db, session.user.accountId)) {
    return await refuse(IMPORT_IN_PROGRESS, 422);
  }
  try {
    await params(c, { maxBodyBytes: MAX_IMPORT_BODY_BYTES });
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) return await refuse(TOO_LARGE, 413);
    // Anything else unreadable is the form token's refusal to give (403).
  }
  return null;
}

/** GET /settings/export: each CSV's row count and its download. */
async function exportPage(c: Context<ApiEnv>): Promise<Response> {
  const { db } = c.get("ctx").database;
  const accountId = settingsSession(c).user.accountId;
  const counts = {
    ...await exportCounts(db, accountId),
    filters: await countFilters(db, accountId),
  };
  return await sendUserPage(c, layout(c, "Export", "export", <ExportPage counts={counts} />));
}

/** Text chunks as a byte stream that pulls one chunk at a time (and stops them on cancel). */
function byteStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

/** GET /settings/exports/<name>.csv: the file, streamed a page of rows at a time. */
/** The filters (Mastodon 4.7): one JSON file, small enough to build whole. */
async function exportFiltersFile(c: Context<ApiEnv>): Promise<Response> {
  const filters = await exportFilters(
    c.get("ctx").database.db,
    settingsSession(c).user.accountId,
  );
  setUserPageHeaders(c);
  c.header("Content-Disposition", 'attachment; filename="custom_filters.json"');
  return c.json(filters);
}

function exportFile(c: Context<ApiEnv>): Response {
  const match = /^([a-z_]+)\.csv$/.exec(c.req.param("file") ?? "");
  const entry = match ? EXPORTS.find((e) => e.path === match[1]) : undefined;
  if (!entry) return c.json({ error: "Record not found" }, 404);
  const { database, config } = c.get("ctx");
  const chunks = exportCsv(
    database.db,
    settingsSession(c).user.accountId,
    config.domain,
    entry.kind,
  );
  setUserPageHeaders(c);
  c.header("Content-Type", "text/csv; charset=utf-8");
  c.header("Content-Disposition", `attachment; filename="${entry.kind}.csv"`);
  return c.body(byteStream(chunks));
}

/** The rows of an uploaded CSV, or why it was refused. */
async function readUpload(
  file: unknown,
  kind: ImportKind,
): Promise<{ rows: string[][] } | { refused: string; status: 413 | 422 }> {
  if (!(file instanceof File) || file.size === 0) {
    return { refused: "Choose a CSV file to upload.", status: 422 };
  }
  if (file.size > MAX_IMPORT_BYTES) return { refused: TOO_LARGE, status: 413 };
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
    return {
      rows: kind === "custom_filters" ? parseFiltersJson(text) : parseImportCsv(kind, text),
    };
  } catch (error) {
    if (error instanceof ImportFileError) return { refused: error.message, status: 422 };
    if (error instanceof TypeError) return { refused: "The file is not UTF-8 text.", status: 422 };
    throw error;
  }
}

/** POST /settings/import: records the import and queues its job, then shows its progress. */
async function postImport(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const kind = typeof p.type === "string" ? p.type : "";
  const mode = typeof p.mode === "string" && p.mode !== "" ? p.mode : "merge";
  const refuse = (message: string, status: 413 | 422 = 422) =>
    importPage(c, { message, status, kind, mode });
  if (!(IMPORT_KINDS as readonly string[]).includes(kind)) {
    return await refuse("Choose what the file holds (the import type).");
  }
  if (!(IMPORT_MODES as readonly string[]).includes(mode)) {
    return await refuse("The mode is merge or overwrite.");
  }
  const upload = await readUpload(p.data, kind as ImportKind);
  if ("refused" in upload) return await refuse(upload.refused, upload.status);
  const ctx = c.get("ctx");
  let imp;
  try {
    imp = await createImport(
      ctx.database.db,
      settingsSession(c).user.accountId,
      kind as ImportKind,
      mode as ImportMode,
      upload.rows,
    );
  } catch (error) {
    if (error instanceof ImportFileError) return await refuse(error.message);
    throw error;
  }
  return c.redirect(`/settings/imports/${imp.id}`, 303);
}

/** GET /settings/imports/:id: one import's progress (someone else's: 404). */
async function importStatus(c: Context<ApiEnv>): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const notFound = () =>
    sendUserPage(
      c,
      layout(c, "Not found", "import", <p>There is no such import.</p>),
      404,
    );
  if (!isId(id)) return await notFound();
  try {
    const { rows: _rows, ...imp } = await findOwnImport(
      c.get("ctx").database.db,
      settingsSession(c).user.accountId,
      id,
    );
    return await sendUserPage(c, layout(c, "Import", "import", <ImportStatusPage imp={imp} />));
  } catch (error) {
    if (error instanceof NotFoundError) return await notFound();
    throw error;
  }
}

export function dataSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const gate = userPage();
  app.use("/settings/export", gate);
  app.use("/settings/exports/*", gate);
  app.use("/settings/import", userPage({ beforeBody: refuseUploadEarly }));
  app.use("/settings/imports/*", gate);
  app.get("/settings/export", exportPage);
  app.get("/settings/exports/custom_filters.json", exportFiltersFile);
  app.get("/settings/exports/:file", exportFile);
  app.get("/settings/import", async (c) => await importPage(c));
  app.post("/settings/import", postImport);
  app.get("/settings/imports/:id", importStatus);
  return app;
}
