/**
 * Instance domain blocks and allows: the commands (Mastodon's
 * Admin::DomainBlocksController with BlockDomainService and
 * UnblockDomainService, and DomainAllow). The admin API and the admin
 * command line both call these; each writes its audit row in its own
 * transaction. What the rules then mean is actors/moderation/domain_rules.ts.
 *
 * Suspending a domain (Mastodon's BlockDomainService) marks its accounts
 * suspended with the block's creation time, which hides them and their
 * statuses everywhere (db/queries/visibility.ts), and ends every follow and
 * follow request between them and our accounts, with no activity sent (the
 * domain is not delivered to any more). Lifting the suspension (unblock, or
 * a change of severity) unsuspends exactly the accounts that carry that
 * time: the statuses come back; the follows do not. Silence writes nothing:
 * it is read through db/queries/limited_accounts.ts.
 */
import { clearCachedMedia } from "../media/remote_cache/clear.ts";
import { asc, desc, eq, type SQL, sql } from "drizzle-orm";
import { newestFirst, type Page, pageWindow } from "../../db/queries/id_paging.ts";
import type { Db, Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { domainAllows, domainBlocks, followRequests, follows } from "../../db/schema/mod.ts";
import { recordAdminAction } from "./audit_log.ts";
import { normalizeDomain } from "../relationships/domain_blocks.ts";
import type { DomainRules, DomainSeverity } from "./domain_rules.ts";
import { NotFoundError, Problems, ValidationError } from "../../model/errors.ts";
import { removeFollows, removeRequests } from "../relationships/follow_rows.ts";
import { isId } from "../../db/ids.ts";
import { purgeDomainAccounts } from "./suspension.ts";

export type DomainBlockRow = typeof domainBlocks.$inferSelect;
export type DomainAllowRow = typeof domainAllows.$inferSelect;

export const SEVERITIES: readonly DomainSeverity[] = ["silence", "suspend", "noop"];
/** Longest comment kept (Mastodon sets none; a bound keeps hostile input out). */
export const COMMENT_MAX = 5_000;

/** What an admin may set on a block (the domain only when creating it). */
export interface DomainBlockInput {
  severity?: string;
  rejectMedia?: boolean;
  rejectReports?: boolean;
  privateComment?: string | null;
  publicComment?: string | null;
  obfuscate?: boolean;
}

/**
 * A block covering the domain already exists and the new one would not be
 * stricter (Mastodon answers 422 with the existing block).
 */
export class ExistingDomainBlockError extends Error {
  constructor(readonly existing: DomainBlockRow) {
    super(`You have already imposed stricter limits on ${existing.domain}.`);
  }
}

/**
 * Where a command writes: the database, and when the caller has it the
 * process core's rules, so this process forgets its copy at once
 * (the admin command line has only `db`; the triggers' notification
 * reaches the server's processes all the same).
 */
export interface Target {
  db: Db;
  rules?: DomainRules;
}

/** Who acts: a staff account, or null for the admin command line. */
export type Actor = string | null;

function checkInput(input: DomainBlockInput, problems: Problems): void {
  if (input.severity !== undefined && !SEVERITIES.includes(input.severity as DomainSeverity)) {
    problems.add("severity", "ERR_INCLUSION", "is not included in the list");
  }
  for (
    const [field, value] of [
      ["private_comment", input.privateComment],
      ["public_comment", input.publicComment],
    ] as const
  ) {
    if (value != null && value.length > COMMENT_MAX) {
      problems.add(field, "ERR_TOO_LONG", `is too long (maximum is ${COMMENT_MAX} characters)`);
    }
  }
}

/** The block's columns from the input (unset fields left out). */
function columnsOf(input: DomainBlockInput): Partial<DomainBlockRow> {
  const out: Partial<DomainBlockRow> = {};
  if (input.severity !== undefined) out.severity = input.severity;
  if (input.rejectMedia !== undefined) out.rejectMedia = input.rejectMedia;
  if (input.rejectReports !== undefined) out.rejectReports = input.rejectReports;
  if (input.privateComment !== undefined) out.privateComment = input.privateComment || null;
  if (input.publicComment !== undefined) out.publicComment = input.publicComment || null;
  if (input.obfuscate !== undefined) out.obfuscate = input.obfuscate;
  return out;
}

/** Mastodon's DomainBlock#stricter_than?. */
function stricterThan(
  block: Pick<DomainBlockRow, "severity" | "rejectMedia" | "rejectReports">,
  other: DomainBlockRow,
): boolean {
  if (block.severity === "suspend") return true;
  if (other.severity === "suspend" && block.severity !== "suspend") return false;
  if (other.severity === "silence" && block.severity === "noop") return false;
  return (block.rejectMedia || !other.rejectMedia) &&
    (block.rejectReports || !other.rejectReports);
}

/** The block covering `domain` (itself or a parent), most specific first. */
async function ruleFor(db: Executor, domain: string): Promise<DomainBlockRow | null> {
  const [row] = await db.select().from(domainBlocks)
    .where(sql`${domainBlocks.domain} = ANY(rookery_domain_variants(${domain}))`)
    .orderBy(desc(sql`length(${domainBlocks.domain})`)).limit(1);
  return row ?? null;
}

/** Accounts of the block's domain and its subdomains (an SQL condition on `accounts`). */
function accountsUnder(domain: string): SQL {
  return sql`accounts.domain IS NOT NULL
    AND ${domain} = ANY(rookery_domain_variants(accounts.domain))`;
}

/** {@link accountsUnder} for an `accounts` row named `a`. */
function accountsUnderAlias(domain: string): SQL {
  return sql`a.domain IS NOT NULL AND ${domain} = ANY(rookery_domain_variants(a.domain))`;
}

/** Suspends the domain's live accounts with the block's time; ends follows both ways. */
async function suspendAccounts(tx: Executor, block: DomainBlockRow): Promise<void> {
  await tx.execute(sql`UPDATE accounts
    SET suspended_at = (SELECT created_at FROM domain_blocks WHERE id = ${block.id}::bigint),
      suspension_origin = 'local'
    WHERE ${accountsUnder(block.domain)} AND suspended_at IS NULL`);
  const remote = sql`(SELECT id FROM accounts WHERE ${accountsUnder(block.domain)})`;
  const ended = await removeFollows(
    tx,
    sql`(${follows.accountId} IN ${remote} OR ${follows.targetAccountId} IN ${remote})`,
  );
  // Their posts leave the home feeds of those who followed them (as
  // Mastodon unmerges them), so lifting the block does not bring them back
  // there. Each feed is bounded; only former followers' are read.
  const followers = [...new Set(ended.map((f) => f.accountId))];
  if (followers.length) {
    await tx.execute(sql`DELETE FROM home_feed h
      WHERE h.account_id IN (SELECT id FROM accounts WHERE domain IS NULL
          AND id = ANY(${`{${followers.join(",")}}`}::bigint[]))
        AND EXISTS (SELECT 1 FROM statuses s JOIN accounts a ON a.id = s.account_id
          WHERE s.id IN (h.status_id, h.reblog_of_id) AND ${accountsUnderAlias(block.domain)})`);
  }
  await removeRequests(
    tx,
    sql`(${followRequests.accountId} IN ${remote} OR ${followRequests.targetAccountId} IN ${remote})`,
  );
}

/**
 * reject_media on a block (Mastodon's BlockDomainService#clear_media!): what
 * we kept of the domain's media becomes a link only. Remote files were never
 * copied here; their avatars and headers are forgotten and their attachments
 * lose type, blurhash and size, so no client is sent to fetch them as images.
 */
async function clearMedia(tx: Executor, block: DomainBlockRow): Promise<void> {
  // Our copies go first: the media condition below reads file_path.
  await clearCachedMedia(
    tx,
    accountsUnder(block.domain),
    sql`${block.domain} = ANY(rookery_domain_variants(custom_emojis.domain))`,
  );
  await tx.execute(sql`UPDATE accounts SET avatar_remote_url = NULL, header_remote_url = NULL
    WHERE ${accountsUnder(block.domain)}
      AND (avatar_remote_url IS NOT NULL OR header_remote_url IS NOT NULL)`);
  await tx.execute(sql`UPDATE media_attachments SET type = 'unknown', blurhash = NULL,
      meta = '{}'::jsonb
    WHERE account_id IN (SELECT id FROM accounts WHERE ${accountsUnder(block.domain)})
      AND remote_url IS NOT NULL AND file_path IS NULL AND type <> 'unknown'`);
}

/** Lifts what {@link suspendAccounts} did to accounts (the follows stay ended). */
async function unsuspendAccounts(tx: Executor, block: DomainBlockRow): Promise<void> {
  await tx.execute(sql`UPDATE accounts SET suspended_at = NULL, suspension_origin = NULL
    WHERE ${accountsUnder(block.domain)}
      AND suspended_at = (SELECT created_at FROM domain_blocks WHERE id = ${block.id}::bigint)`);
}

/**
 * Blocks a domain. 422 (ValidationError) for a bad domain, severity or
 * comment; {@link ExistingDomainBlockError} when the domain already has a
 * block, or a parent's block is at least as strict.
 */
export async function createDomainBlock(
  target: Target,
  actor: Actor,
  domainInput: string,
  input: DomainBlockInput,
): Promise<DomainBlockRow> {
  const problems = new Problems();
  let domain = "";
  try {
    domain = normalizeDomain(domainInput);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const entry of error.details.domain ?? []) {
      problems.add("domain", entry.error, entry.description);
    }
  }
  checkInput(input, problems);
  problems.throwIfAny();
  const wanted = {
    severity: input.severity ?? "silence",
    rejectMedia: input.rejectMedia ?? false,
    rejectReports: input.rejectReports ?? false,
  };
  const block = await target.db.transaction(async (tx) => {
    // One block per domain even with two admins at once.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('domain_blocks'))`);
    const existing = await ruleFor(tx, domain);
    if (existing && (existing.domain === domain || !stricterThan(wanted, existing))) {
      throw new ExistingDomainBlockError(existing);
    }
    const [row] = await tx.insert(domainBlocks).values({
      id: newId(),
      domain,
      ...columnsOf(input),
      ...wanted,
    }).returning();
    if (row.severity === "suspend") await suspendAccounts(tx, row);
    if (row.rejectMedia || row.severity === "suspend") await clearMedia(tx, row);
    await auditDomain(tx, actor, "create", "DomainBlock", row);
    return row;
  });
  target.rules?.forget();
  return block;
}

/** Changes a block (not its domain); a change of severity applies at once. */
export async function updateDomainBlock(
  target: Target,
  actor: Actor,
  id: string,
  input: DomainBlockInput,
): Promise<DomainBlockRow> {
  const problems = new Problems();
  checkInput(input, problems);
  problems.throwIfAny();
  const block = await target.db.transaction(async (tx) => {
    const before = await lockBlock(tx, id);
    const [row] = await tx.update(domainBlocks)
      .set({ ...columnsOf(input), updatedAt: new Date() })
      .where(eq(domainBlocks.id, before.id)).returning();
    if (before.severity === "suspend" && row.severity !== "suspend") {
      await unsuspendAccounts(tx, row);
    } else if (before.severity !== "suspend" && row.severity === "suspend") {
      await suspendAccounts(tx, row);
    }
    if (
      (row.rejectMedia && !before.rejectMedia) ||
      (row.severity === "suspend" && before.severity !== "suspend")
    ) {
      await clearMedia(tx, row);
    }
    await auditDomain(tx, actor, "update", "DomainBlock", row);
    return row;
  });
  target.rules?.forget();
  return block;
}

/** Lifts a block; accounts it suspended are unsuspended. */
export async function removeDomainBlock(
  target: Target,
  actor: Actor,
  id: string,
): Promise<DomainBlockRow> {
  const block = await target.db.transaction(async (tx) => {
    const row = await lockBlock(tx, id);
    if (row.severity === "suspend") await unsuspendAccounts(tx, row);
    await tx.delete(domainBlocks).where(eq(domainBlocks.id, row.id));
    await auditDomain(tx, actor, "destroy", "DomainBlock", row);
    return row;
  });
  target.rules?.forget();
  return block;
}

/** The audit row of a domain block's or allow's change. */
async function auditDomain(
  tx: Executor,
  actor: Actor,
  action: "create" | "update" | "destroy",
  targetType: "DomainBlock" | "DomainAllow",
  row: { id: string; domain: string },
): Promise<void> {
  await recordAdminAction(tx, {
    accountId: actor,
    action,
    targetType,
    targetId: row.id,
    humanIdentifier: row.domain,
  });
}

async function lockBlock(tx: Executor, id: string): Promise<DomainBlockRow> {
  if (!isId(id)) throw new NotFoundError();
  const [row] = await tx.select().from(domainBlocks).where(eq(domainBlocks.id, id))
    .for("update").limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

/** The block with this id, or NotFoundError. */
export async function findDomainBlock(db: Executor, id: string): Promise<DomainBlockRow> {
  if (!isId(id)) throw new NotFoundError();
  const [row] = await db.select().from(domainBlocks).where(eq(domainBlocks.id, id)).limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

/** The block of exactly this domain (normalized), or null (the command line). */
export async function findDomainBlockByDomain(
  db: Executor,
  domain: string,
): Promise<DomainBlockRow | null> {
  const [row] = await db.select().from(domainBlocks)
    .where(eq(domainBlocks.domain, normalizeDomain(domain))).limit(1);
  return row ?? null;
}

/** Paging of the admin lists: newest first by id. */
export type IdPage = Page;

async function pageOf<T extends { id: string }>(
  db: Executor,
  table: typeof domainBlocks | typeof domainAllows,
  page: IdPage,
): Promise<T[]> {
  const window = pageWindow(table.id, page);
  const rows = await db.select().from(table).where(window.where).orderBy(window.order)
    .limit(page.limit);
  return newestFirst(rows, window.reverse) as T[];
}

/** One page of blocks, newest first. */
export function listDomainBlocks(db: Executor, page: IdPage): Promise<DomainBlockRow[]> {
  return pageOf<DomainBlockRow>(db, domainBlocks, page);
}

/**
 * The blocks the instance shows the public (Mastodon's
 * with_user_facing_limitations, by severity): silence and suspend, the
 * strictest first.
 */
export async function publicDomainBlocks(db: Executor): Promise<DomainBlockRow[]> {
  return await db.select().from(domainBlocks)
    .where(sql`${domainBlocks.severity} IN ('silence', 'suspend')`)
    .orderBy(
      sql`CASE ${domainBlocks.severity} WHEN 'suspend' THEN 0 ELSE 1 END`,
      asc(domainBlocks.domain),
    );
}

/**
 * Allows a domain (limited federation). Allowing a domain again returns its
 * allow, unchanged and without a second audit row, as Mastodon does.
 */
export async function createDomainAllow(
  target: Target,
  actor: Actor,
  domainInput: string,
): Promise<DomainAllowRow> {
  const domain = normalizeDomain(domainInput);
  const allow = await target.db.transaction(async (tx) => {
    const [row] = await tx.insert(domainAllows).values({ id: newId(), domain })
      .onConflictDoNothing().returning();
    if (!row) {
      const [existing] = await tx.select().from(domainAllows)
        .where(eq(domainAllows.domain, domain)).limit(1);
      return existing;
    }
    await auditDomain(tx, actor, "create", "DomainAllow", row);
    return row;
  });
  target.rules?.forget();
  return allow;
}

/**
 * Removes an allow; the domain stops federating when FEDERATION_MODE=allowlist.
 * In that mode (`purge`), the domain's accounts are suspended and their data
 * purged in the same transaction, as Mastodon's UnallowDomainService does.
 */
export async function removeDomainAllow(
  target: Target,
  actor: Actor,
  id: string,
  options: { purge: boolean } = { purge: false },
): Promise<DomainAllowRow> {
  if (!isId(id)) throw new NotFoundError();
  const allow = await target.db.transaction(async (tx) => {
    const [row] = await tx.delete(domainAllows).where(eq(domainAllows.id, id)).returning();
    if (!row) throw new NotFoundError();
    await auditDomain(tx, actor, "destroy", "DomainAllow", row);
    if (options.purge) await purgeDomainAccounts(tx, row.domain);
    return row;
  });
  target.rules?.forget();
  return allow;
}

/** The allow with this id, or NotFoundError. */
export async function findDomainAllow(db: Executor, id: string): Promise<DomainAllowRow> {
  if (!isId(id)) throw new NotFoundError();
  const [row] = await db.select().from(domainAllows).where(eq(domainAllows.id, id)).limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

/** One page of allows, newest first. */
export function listDomainAllows(db: Executor, page: IdPage): Promise<DomainAllowRow[]> {
  return pageOf<DomainAllowRow>(db, domainAllows, page);
}
