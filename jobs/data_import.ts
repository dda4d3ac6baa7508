/**
 * The import job of the settings pages' CSV imports (actors/import_export/import.ts):
 * a batch of rows per run, each applied through the same command as the API
 * (follow, block, mute, domain block, bookmark, list membership), remote
 * accounts and posts resolved as search and follow resolve them. A row that
 * cannot be applied (unknown account, refused follow, bad domain) is counted
 * as failed and the import goes on. Progress is written after each batch,
 * and the next batch is queued behind it on the import's own ordering key.
 *
 * Overwrite mode first removes what the file does not list, as Mastodon's
 * BulkImportService does: follows, blocks, mutes, domain blocks, bookmarks,
 * and lists (a list the file does not name is deleted, a member it does not
 * list is taken out).
 */
import { and, eq, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import {
  accountDomainBlocks,
  accounts,
  blocks,
  bookmarks,
  dataImports,
  follows,
  listAccounts,
  mutes,
  statuses,
} from "../db/schema/mod.ts";
import { follow, unfollow } from "../actors/relationships/follows.ts";
import { block, unblock } from "../actors/relationships/blocks.ts";
import { mute, unmute } from "../actors/relationships/mutes.ts";
import {
  blockDomain,
  normalizeDomain,
  unblockDomain,
} from "../actors/relationships/domain_blocks.ts";
import { bookmark, unbookmark } from "../actors/interactions/bookmarks.ts";
import {
  addListAccounts,
  createList,
  deleteList,
  listsOf,
  removeListAccounts,
} from "../actors/timelines/lists.ts";
import { ValidationError } from "../model/errors.ts";
import type { DataImportRow, ImportKind } from "../actors/import_export/import.ts";
import { resolveRemoteAccount } from "../federation/remote/accounts.ts";
import { findStatusByUri, resolveRemoteStatus } from "../federation/remote/statuses.ts";
import { instanceContext } from "../federation/fetch/lookup.ts";
import { FetchBudget } from "../federation/fetch/budget.ts";
import { recordJob } from "../actors/outbox/jobs.ts";

import { importFilterRow, removeAllFilters } from "../actors/import_export/filters_import.ts";
const logger = getLogger(["rookery", "jobs", "data_import"]);

/** Rows applied per run of the job (each may fetch a remote actor). */
export const IMPORT_BATCH = 50;

/** One run: the overwrite removals first (once), then the next batch of rows. */
export async function runDataImport(ctx: AppContext, job: { importId: string }): Promise<void> {
  const db = ctx.database.db;
  const [imp] = await db.select({
    id: dataImports.id,
    accountId: dataImports.accountId,
    kind: dataImports.kind,
    mode: dataImports.mode,
    state: dataImports.state,
    totalRows: dataImports.totalRows,
    processedRows: dataImports.processedRows,
  }).from(dataImports).where(eq(dataImports.id, job.importId));
  if (!imp || imp.state === "finished") return;
  const [owner] = await db.select({ deletedAt: accounts.deletedAt }).from(accounts)
    .where(eq(accounts.id, imp.accountId));
  if (!owner || owner.deletedAt) return;
  if (imp.state === "queued") {
    if (imp.mode === "overwrite") await removeUnlisted(ctx, imp as DataImportRow);
    await db.update(dataImports).set({ state: "running" }).where(eq(dataImports.id, imp.id));
  }
  const start = imp.processedRows;
  // Only this batch's rows leave the database (a file may hold 20,000).
  const [{ batch }] = await db.select({
    batch: sql<
      string[][] | null
    >`(SELECT jsonb_agg(e ORDER BY i) FROM jsonb_array_elements(${dataImports.rows}) WITH ORDINALITY AS t(e, i) WHERE i > ${start} AND i <= ${
      start + IMPORT_BATCH
    })`,
  }).from(dataImports).where(eq(dataImports.id, imp.id));
  const rows = batch ?? [];
  let failed = 0;
  for (const row of rows) {
    let ok = false;
    try {
      ok = await applyRow(ctx, imp.accountId, imp.kind as ImportKind, row);
    } catch (error) {
      logger.debug("Import {id}: a row failed: {error}", { id: imp.id, error });
    }
    if (!ok) failed++;
  }
  const processed = Math.min(start + rows.length, imp.totalRows);
  const done = rows.length === 0 || processed >= imp.totalRows;
  await db.update(dataImports).set({
    processedRows: processed,
    failedRows: sql`${dataImports.failedRows} + ${failed}`,
    state: done ? "finished" : "running",
    finishedAt: done ? new Date() : null,
    // A finished import keeps its figures, not the file (up to 4 MiB of rows).
    ...(done ? { rows: [] } : {}),
  }).where(eq(dataImports.id, imp.id));
  if (!done) await recordJob(ctx.database.db, { job: "data_import", importId: imp.id });
}

const truthy = (cell: string | undefined, fallback: boolean): boolean => {
  const value = (cell ?? "").trim().toLowerCase();
  if (value === "") return fallback;
  return ["true", "1", "yes", "t"].includes(value);
};

/** `user@host` with our domain added to a bare username and the `@`/`acct:` dropped. */
function normalizedAddress(ctx: AppContext, raw: string): string {
  const bare = raw.trim().replace(/^acct:/i, "").replace(/^@/, "");
  return (bare.includes("@") ? bare : `${bare}@${ctx.config.domain}`).toLowerCase();
}

async function resolveAccount(ctx: AppContext, accountId: string, raw: string | undefined) {
  if (!raw?.trim()) return null;
  const target = await resolveRemoteAccount(ctx, normalizedAddress(ctx, raw));
  if (!target || target.deletedAt || target.suspendedAt || target.id === accountId) return null;
  return target;
}

/** Applies one row; false when it cannot be (counted as failed). */
async function applyRow(
  ctx: AppContext,
  accountId: string,
  kind: ImportKind,
  row: string[],
): Promise<boolean> {
  switch (kind) {
    case "following": {
      const target = await resolveAccount(ctx, accountId, row[0]);
      if (!target) return false;
      const languages = (row[3] ?? "").split(",").map((l) => l.trim().toLowerCase())
        .filter((l) => /^[a-z]{2,3}$/.test(l));
      await follow(ctx, accountId, target.id, {
        reblogs: truthy(row[1], true),
        notify: truthy(row[2], false),
        languages: languages.length ? languages : null,
      });
      return true;
    }
    case "blocking": {
      const target = await resolveAccount(ctx, accountId, row[0]);
      if (!target) return false;
      await block(ctx, accountId, target.id);
      return true;
    }
    case "muting": {
      const target = await resolveAccount(ctx, accountId, row[0]);
      if (!target) return false;
      await mute(ctx, accountId, target.id, { notifications: truthy(row[1], true) });
      return true;
    }
    case "domain_blocking": {
      if (!row[0]?.trim()) return false;
      await blockDomain(ctx, accountId, row[0]);
      return true;
    }
    case "bookmarks": {
      const uri = row[0]?.trim();
      if (!uri || !/^https?:\/\//i.test(uri)) return false;
      const status = await findStatusByUri(ctx, uri) ??
        await resolveRemoteStatus(instanceContext(ctx), uri, FetchBudget.of(ctx));
      if (!status) return false;
      await bookmark(ctx, accountId, status.id);
      return true;
    }
    case "lists":
      return await addToList(ctx, accountId, row[0], row[1]);
    case "custom_filters":
      return await importFilterRow(
        ctx.database.db,
        accountId,
        row[0] ?? "",
        async (uri) =>
          await findStatusByUri(ctx, uri) ??
            await resolveRemoteStatus(instanceContext(ctx), uri, FetchBudget.of(ctx)),
      );
  }
}

/** Adds the row's account to the list with its title (created when missing), following it first. */
async function addToList(
  ctx: AppContext,
  accountId: string,
  title: string | undefined,
  raw: string | undefined,
): Promise<boolean> {
  const name = title?.trim();
  if (!name) return false;
  const target = await resolveAccount(ctx, accountId, raw);
  if (!target) return false;
  const db = ctx.database.db;
  const list = (await listsOf(db, accountId)).find((l) => l.title === name) ??
    await createList(db, accountId, { title: name });
  // A list holds followed accounts only; Mastodon's import follows them first.
  const [followed] = await db.select({ id: follows.id }).from(follows)
    .where(and(eq(follows.accountId, accountId), eq(follows.targetAccountId, target.id)));
  if (!followed) await follow(ctx, accountId, target.id);
  try {
    await addListAccounts(db, accountId, list.id, [target.id]);
  } catch (error) {
    // Already a member: nothing to do.
    if (!(error instanceof ValidationError)) throw error;
  }
  return true;
}

/** Overwrite mode: removes what the import's file does not list. */
async function removeUnlisted(ctx: AppContext, imp: DataImportRow): Promise<void> {
  const db = ctx.database.db;
  const me = imp.accountId;
  const [{ all }] = await db.select({ all: dataImports.rows }).from(dataImports)
    .where(eq(dataImports.id, imp.id));
  const addressOf = (r: { username: string; domain: string | null }) =>
    `${r.username}@${r.domain ?? ctx.config.domain}`.toLowerCase();
  const listed = new Set(all.map((r) => normalizedAddress(ctx, r[0] ?? "")));
  const accountsOf = (table: typeof follows | typeof blocks | typeof mutes) =>
    db.select({ id: accounts.id, username: accounts.username, domain: accounts.domain })
      .from(table).innerJoin(accounts, eq(accounts.id, table.targetAccountId))
      .where(eq(table.accountId, me));
  switch (imp.kind as ImportKind) {
    case "following":
      for (const a of await accountsOf(follows)) {
        if (!listed.has(addressOf(a))) await unfollow(ctx, me, a.id);
      }
      return;
    case "blocking":
      for (const a of await accountsOf(blocks)) {
        if (!listed.has(addressOf(a))) await unblock(ctx, me, a.id);
      }
      return;
    case "muting":
      for (const a of await accountsOf(mutes)) {
        if (!listed.has(addressOf(a))) await unmute(ctx, me, a.id);
      }
      return;
    case "domain_blocking": {
      const domains = new Set(all.map((r) => {
        try {
          return normalizeDomain(r[0] ?? "");
        } catch {
          return null;
        }
      }));
      const mine = await db.select({ domain: accountDomainBlocks.domain })
        .from(accountDomainBlocks).where(eq(accountDomainBlocks.accountId, me));
      for (const { domain } of mine) {
        if (!domains.has(domain)) await unblockDomain(ctx, me, domain);
      }
      return;
    }
    case "bookmarks": {
      const uris = new Set(all.map((r) => (r[0] ?? "").trim()));
      const mine = await db.select({ statusId: bookmarks.statusId, uri: statuses.uri })
        .from(bookmarks).innerJoin(statuses, eq(statuses.id, bookmarks.statusId))
        .where(eq(bookmarks.accountId, me));
      for (const { statusId, uri } of mine) {
        if (!uris.has(uri)) await unbookmark(ctx, me, statusId);
      }
      return;
    }
    case "custom_filters":
      await removeAllFilters(db, me);
      return;
    case "lists": {
      const members = new Map<string, Set<string>>();
      for (const [title, raw] of all) {
        const name = (title ?? "").trim();
        if (!members.has(name)) members.set(name, new Set());
        members.get(name)!.add(normalizedAddress(ctx, raw ?? ""));
      }
      for (const list of await listsOf(db, me)) {
        const keep = members.get(list.title);
        if (!keep) {
          await deleteList(db, me, list.id);
          continue;
        }
        const current = await db.select({
          id: accounts.id,
          username: accounts.username,
          domain: accounts.domain,
        }).from(listAccounts).innerJoin(accounts, eq(accounts.id, listAccounts.accountId))
          .where(eq(listAccounts.listId, list.id));
        const gone = current.filter((a) => !keep.has(addressOf(a))).map((a) => a.id);
        if (gone.length) await removeListAccounts(db, me, list.id, gone);
      }
      return;
    }
  }
}
