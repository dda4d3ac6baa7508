/**
 * E-mail domain blocks (Mastodon's EmailDomainBlock): staff name a domain,
 * and sign-ups with an address at it or at any of its subdomains are
 * refused (`email: ERR_BLOCKED`), or let in to wait for approval when the
 * block says `allow_with_approval`. Every matched attempt is counted per day
 * and client address for the entity's seven-day `history`.
 *
 * As Mastodon, the MX hosts of a sign-up's domain are checked against the
 * blocks too (./email_mx.ts resolves them before the registration).
 */
import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { emailDomainBlockAttempts, emailDomainBlocks } from "../../db/schema/mod.ts";
import { type Actor, recordAdminAction } from "../moderation/audit_log.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import { newestFirst, type Page, pageWindow } from "../../db/queries/id_paging.ts";

export type EmailDomainBlockRow = typeof emailDomainBlocks.$inferSelect;

/** One day of a block's history, as Mastodon's entity shows it (all strings). */
export interface HistoryDay {
  /** The day's UTC midnight, in Unix seconds. */
  day: string;
  /** Distinct client addresses that tried. */
  accounts: string;
  /** Attempts. */
  uses: string;
}

/** Days of history kept and shown, as Mastodon's. */
export const HISTORY_DAYS = 7;

const DAY_MS = 24 * 60 * 60 * 1000;

function invalid(field: string, error: string, description: string): ValidationError {
  return new ValidationError({ [field]: [{ error, description }] });
}

/**
 * A domain as blocks store it: trimmed, lowercase, IDNA (punycode) form,
 * without a trailing dot; null when it is not a domain name (labels of
 * letters, digits and hyphens, at most 63 each and 253 in all).
 */
export function normalizeEmailDomain(input: string): string | null {
  const s = input.trim().toLowerCase().replace(/\.$/, "");
  if (s === "" || s.length > 253 || /[\s/@:?#\[\]\\%]/.test(s)) return null;
  let ascii: string;
  try {
    ascii = new URL(`http://${s}`).hostname;
  } catch {
    return null;
  }
  if (ascii.length > 253) return null;
  const labels = ascii.split(".");
  const label = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
  return labels.every((l) => label.test(l)) ? ascii : null;
}

/** A normalized domain and every parent domain, most specific first. */
function domainAndParents(domain: string): string[] {
  const labels = domain.split(".");
  return labels.map((_, i) => labels.slice(i).join("."));
}

/** The domain of an address and every parent domain, most specific first. */
export function emailDomainCandidates(email: string): string[] {
  const at = email.lastIndexOf("@");
  if (at < 0) return [];
  const domain = normalizeEmailDomain(email.slice(at + 1));
  if (!domain) return [];
  return domainAndParents(domain);
}

/**
 * The blocks that cover an address's domain (its own or a parent's), or one
 * of `mxHosts` (normalized names of its mail servers, or a parent of one).
 */
export async function emailDomainBlocksFor(
  db: Executor,
  email: string,
  mxHosts: readonly string[] = [],
): Promise<EmailDomainBlockRow[]> {
  const own = emailDomainCandidates(email);
  if (!own.length) return [];
  const candidates = [...new Set([...own, ...mxHosts.flatMap(domainAndParents)])];
  return await db.select().from(emailDomainBlocks)
    .where(sql`${emailDomainBlocks.domain} = ANY(${sql.param(candidates)}::text[])`);
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Counts one sign-up attempt from `ip` against each block; runs outside
 * the (refused, rolled back) registration, and forgets days past the history.
 */
export async function recordBlockedAttempt(
  db: Executor,
  blockIds: readonly string[],
  ip: string,
  now = new Date(),
): Promise<void> {
  if (!blockIds.length) return;
  const day = utcDay(now);
  await db.insert(emailDomainBlockAttempts)
    .values(blockIds.map((blockId) => ({ blockId, day, ip: ip.slice(0, 64) })))
    .onConflictDoUpdate({
      target: [
        emailDomainBlockAttempts.blockId,
        emailDomainBlockAttempts.day,
        emailDomainBlockAttempts.ip,
      ],
      set: { uses: sql`${emailDomainBlockAttempts.uses} + 1` },
    });
  const oldest = utcDay(new Date(now.getTime() - (HISTORY_DAYS - 1) * DAY_MS));
  await db.delete(emailDomainBlockAttempts).where(lt(emailDomainBlockAttempts.day, oldest));
}

/** Each block's last seven days, newest first, days without attempts included. */
export async function emailDomainBlockHistory(
  db: Executor,
  blockIds: readonly string[],
  now = new Date(),
): Promise<Map<string, HistoryDay[]>> {
  const today = Date.parse(utcDay(now));
  const oldest = utcDay(new Date(today - (HISTORY_DAYS - 1) * DAY_MS));
  const rows = blockIds.length
    ? await db.select({
      blockId: emailDomainBlockAttempts.blockId,
      day: emailDomainBlockAttempts.day,
      accounts: sql<number>`count(*)::int`,
      uses: sql<number>`sum(${emailDomainBlockAttempts.uses})::int`,
    }).from(emailDomainBlockAttempts)
      .where(and(
        anyId(emailDomainBlockAttempts.blockId, blockIds),
        gte(emailDomainBlockAttempts.day, oldest),
      ))
      .groupBy(emailDomainBlockAttempts.blockId, emailDomainBlockAttempts.day)
    : [];
  const counts = new Map(rows.map((r) => [`${r.blockId} ${r.day}`, r]));
  const history = new Map<string, HistoryDay[]>();
  for (const blockId of blockIds) {
    const days: HistoryDay[] = [];
    for (let i = 0; i < HISTORY_DAYS; i++) {
      const start = today - i * DAY_MS;
      const row = counts.get(`${blockId} ${utcDay(new Date(start))}`);
      days.push({
        day: String(start / 1000),
        accounts: String(row?.accounts ?? 0),
        uses: String(row?.uses ?? 0),
      });
    }
    history.set(blockId, days);
  }
  return history;
}

/** A page of blocks, newest first. */
export async function listEmailDomainBlocks(
  db: Executor,
  page: Page,
): Promise<EmailDomainBlockRow[]> {
  const q = pageWindow(emailDomainBlocks.id, page);
  const rows = await db.select().from(emailDomainBlocks).where(q.where).orderBy(q.order)
    .limit(page.limit);
  return newestFirst(rows, q.reverse);
}

/** One block; NotFoundError when there is none. */
export async function getEmailDomainBlock(db: Executor, id: string): Promise<EmailDomainBlockRow> {
  const [row] = await db.select().from(emailDomainBlocks).where(eq(emailDomainBlocks.id, id))
    .limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

/** What staff send to block a domain. */
export interface EmailDomainBlockInput {
  domain?: string;
  allowWithApproval?: boolean;
}

/** Blocks a domain, with its audit row. ValidationError: blank, not a domain, already blocked. */
export async function createEmailDomainBlock(
  db: Executor,
  actor: Actor,
  input: EmailDomainBlockInput,
): Promise<EmailDomainBlockRow> {
  const raw = input.domain?.trim() ?? "";
  if (raw === "") throw invalid("domain", "ERR_BLANK", "can't be blank");
  const domain = normalizeEmailDomain(raw);
  if (!domain) throw invalid("domain", "ERR_INVALID", "is not a valid domain name");
  return await db.transaction(async (tx) => {
    const [row] = await tx.insert(emailDomainBlocks).values({
      id: newId(),
      domain,
      allowWithApproval: input.allowWithApproval ?? false,
    }).onConflictDoNothing({ target: emailDomainBlocks.domain }).returning();
    if (!row) throw invalid("domain", "ERR_TAKEN", "has already been taken");
    await recordAdminAction(tx, {
      accountId: actor,
      action: "create",
      targetType: "EmailDomainBlock",
      targetId: row.id,
      humanIdentifier: row.domain,
    });
    return row;
  });
}

/** Lifts a block (its children and counts go with it), with its audit row. */
export async function deleteEmailDomainBlock(
  db: Executor,
  actor: Actor,
  id: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.delete(emailDomainBlocks).where(eq(emailDomainBlocks.id, id))
      .returning();
    if (!row) throw new NotFoundError();
    await recordAdminAction(tx, {
      accountId: actor,
      action: "destroy",
      targetType: "EmailDomainBlock",
      targetId: row.id,
      humanIdentifier: row.domain,
    });
  });
}
