/**
 * CSV imports from the settings pages (issue 20): reading an uploaded file
 * in Mastodon's export formats (actors/import_export/export.ts), checking it, and
 * recording it (data_imports) for the import job
 * (jobs/data_import.ts), which applies the rows through the same
 * commands as the API. A file that cannot be read at all is refused whole
 * with a reason; a row that cannot be applied later is counted as failed.
 *
 * Limits: Mastodon's 20,000 rows (Form::Import), and a file of at most
 * 4 MiB, a fifth of Mastodon's 20 MB: 20,000 rows of 200 bytes, where the
 * longest rows real exports hold (a post's URI, a handle with its flags) take
 * under 100, and every byte more is only work (the whole file is read, parsed
 * and stored as one row of `data_imports`). One import at a time per user.
 */
import { and, count, desc, eq, gt, ne } from "drizzle-orm";
import { parse } from "csv-parse/sync";
import type { Db } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, dataImports } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { recordJob } from "../outbox/jobs.ts";

export const IMPORT_KINDS = [
  "following",
  "blocking",
  "muting",
  "domain_blocking",
  "bookmarks",
  "lists",
  // Mastodon 4.7's filters file (JSON: filters_import.ts).
  "custom_filters",
] as const;
export type ImportKind = typeof IMPORT_KINDS[number];
export const IMPORT_MODES = ["merge", "overwrite"] as const;
export type ImportMode = typeof IMPORT_MODES[number];

export const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
/** The upload's whole body: the file, and room for the form's other fields and boundaries. */
export const MAX_IMPORT_BODY_BYTES = MAX_IMPORT_BYTES + 64 * 1024;
export const MAX_IMPORT_ROWS = 20_000;
/** A cell longer than this is no address, domain or URI (kept out of the table). */
const MAX_CELL = 2048;

export type DataImportRow = typeof dataImports.$inferSelect;

/**
 * The columns each kind reads, in the order a file without a header has
 * them; the first is required. The header names are Mastodon's.
 */
const COLUMNS: Record<ImportKind, string[]> = {
  following: ["Account address", "Show boosts", "Notify on new posts", "Languages"],
  blocking: ["Account address"],
  muting: ["Account address", "Hide notifications"],
  domain_blocking: ["#domain"],
  bookmarks: ["#uri"],
  // Mastodon's lists.csv has no header: title, then address.
  lists: ["List name", "Account address"],
  // One cell: the filter as JSON (read by filters_import.ts, never as CSV).
  custom_filters: ["filter"],
};

/** A file that cannot be imported at all; the message says why (shown to the user). */
export class ImportFileError extends Error {}

function refuse(message: string): never {
  throw new ImportFileError(message);
}

/**
 * The rows of `text` for `kind`, each as the kind's cells in COLUMNS order.
 * A header row (Mastodon's names, any order) is recognised and dropped;
 * blank lines are skipped.
 *
 * @throws ImportFileError when the file is not CSV, holds no rows, or too many
 */
export function parseImportCsv(kind: ImportKind, text: string): string[][] {
  if (text.includes("\u0000")) refuse("The file is not a CSV file");
  let records: string[][];
  try {
    records = parse(text.replace(/^\uFEFF/, ""), {
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
      // One over the limit is enough to refuse: the rest is never read.
      to_line: MAX_IMPORT_ROWS + 2,
    });
  } catch (error) {
    refuse(`The file is not a valid CSV file (${(error as Error).message.slice(0, 200)})`);
  }
  const wanted = COLUMNS[kind];
  let order = wanted.map((_, i) => i);
  const first = records[0]?.map((cell) => cell.trim().toLowerCase());
  if (first && first.includes(wanted[0].toLowerCase())) {
    // A header: each wanted column where the header puts it (absent: none).
    order = wanted.map((name) => first.indexOf(name.toLowerCase()));
    records = records.slice(1);
  } else if (kind === "lists" && first && first.length < 2) {
    refuse("A lists file has two columns: the list's title and the account's address");
  }
  const rows = records
    .filter((record) => record.some((cell) => cell !== ""))
    .map((record) => order.map((i) => (i >= 0 ? (record[i] ?? "").slice(0, MAX_CELL) : "")));
  if (rows.length === 0) refuse("The file holds no rows");
  if (rows.length > MAX_IMPORT_ROWS) {
    refuse(`The file has more than ${MAX_IMPORT_ROWS.toLocaleString("en")} rows`);
  }
  return rows;
}

/**
 * Imports one user may have waiting or running at once: each holds its rows
 * and a share of the queue. Only those started in the last day count, so an
 * import left unfinished by a failed job does not lock anyone out for long.
 */
export const MAX_UNFINISHED_IMPORTS = 1;

/** Why an upload is refused while another import runs. */
export const IMPORT_IN_PROGRESS =
  "You have an import in progress: wait until it finishes before uploading another file";

function unfinishedOf(accountId: string) {
  return and(
    eq(dataImports.accountId, accountId),
    ne(dataImports.state, "finished"),
    gt(dataImports.createdAt, new Date(Date.now() - 24 * 60 * 60 * 1000)),
  );
}

/** Whether the account has as many imports unfinished as it may (checked before an upload is read). */
export async function hasUnfinishedImport(db: Db, accountId: string): Promise<boolean> {
  const [{ n }] = await db.select({ n: count() }).from(dataImports)
    .where(unfinishedOf(accountId));
  return n >= MAX_UNFINISHED_IMPORTS;
}

/**
 * Records an import of `rows` and its first run of the import job
 * (jobs/data_import.ts), in one transaction.
 * The account's row is locked while the unfinished ones are counted, so two
 * uploads at once do not both pass.
 *
 * @throws ImportFileError when the user already has an import unfinished
 */
export async function createImport(
  db: Db,
  accountId: string,
  kind: ImportKind,
  mode: ImportMode,
  rows: string[][],
): Promise<DataImportRow> {
  return await db.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId))
      .for("update");
    const [{ n }] = await tx.select({ n: count() }).from(dataImports)
      .where(unfinishedOf(accountId));
    if (n >= MAX_UNFINISHED_IMPORTS) refuse(IMPORT_IN_PROGRESS);
    const [row] = await tx.insert(dataImports).values({
      id: newId(),
      accountId,
      kind,
      mode,
      rows,
      totalRows: rows.length,
    }).returning();
    await recordJob(tx, { job: "data_import", importId: row.id });
    return row;
  });
}

/** The account's own import `id` (someone else's or unknown → NotFoundError). */
export async function findOwnImport(db: Db, accountId: string, id: string): Promise<DataImportRow> {
  const [row] = await db.select().from(dataImports)
    .where(and(eq(dataImports.id, id), eq(dataImports.accountId, accountId)));
  if (!row) throw new NotFoundError();
  return row;
}

/** Progress of an import, without its rows. */
export type ImportProgress = Omit<DataImportRow, "rows">;

/** The account's latest imports, newest first (without their rows). */
export async function recentImports(
  db: Db,
  accountId: string,
  limit = 10,
): Promise<ImportProgress[]> {
  return await db.select({
    id: dataImports.id,
    accountId: dataImports.accountId,
    kind: dataImports.kind,
    mode: dataImports.mode,
    state: dataImports.state,
    totalRows: dataImports.totalRows,
    processedRows: dataImports.processedRows,
    failedRows: dataImports.failedRows,
    createdAt: dataImports.createdAt,
    finishedAt: dataImports.finishedAt,
  }).from(dataImports).where(eq(dataImports.accountId, accountId))
    .orderBy(desc(dataImports.id)).limit(limit);
}
