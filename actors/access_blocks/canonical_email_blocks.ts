/**
 * Canonical e-mail blocks (Mastodon's CanonicalEmailBlock): an address, kept
 * only as the SHA-256 of its canonical form (canonical_email.ts), that may
 * not sign up again in any of its spellings. A sign-up with it is refused
 * as Mastodon refuses it: `email: ERR_TAKEN`, saying nothing of the block.
 */
import { eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { canonicalEmailBlocks } from "../../db/schema/mod.ts";
import { type Actor, recordAdminAction } from "../moderation/audit_log.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import { canonicalEmailHash, isCanonicalEmailHash } from "./canonical_email.ts";
import { newestFirst, type Page, pageWindow } from "../../db/queries/id_paging.ts";

export type CanonicalEmailBlockRow = typeof canonicalEmailBlocks.$inferSelect;

/** Longest address taken (RFC 5321's path limit, as the sign-up form's). */
const EMAIL_MAX = 320;

function invalid(field: string, error: string, description: string): ValidationError {
  return new ValidationError({ [field]: [{ error, description }] });
}

/** The blocks matching an address (none or one). */
export async function canonicalEmailBlocksFor(
  db: Executor,
  email: string,
): Promise<CanonicalEmailBlockRow[]> {
  if (email.trim() === "" || email.length > EMAIL_MAX) return [];
  return await db.select().from(canonicalEmailBlocks)
    .where(eq(canonicalEmailBlocks.canonicalEmailHash, await canonicalEmailHash(email)));
}

/** A page of blocks, newest first. */
export async function listCanonicalEmailBlocks(
  db: Executor,
  page: Page,
): Promise<CanonicalEmailBlockRow[]> {
  const q = pageWindow(canonicalEmailBlocks.id, page);
  const rows = await db.select().from(canonicalEmailBlocks).where(q.where).orderBy(q.order)
    .limit(page.limit);
  return newestFirst(rows, q.reverse);
}

/** One block; NotFoundError otherwise. */
export async function getCanonicalEmailBlock(
  db: Executor,
  id: string,
): Promise<CanonicalEmailBlockRow> {
  const [row] = await db.select().from(canonicalEmailBlocks)
    .where(eq(canonicalEmailBlocks.id, id)).limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

/** What staff send: an address (hashed here), or the hash itself. The address wins. */
export interface CanonicalEmailBlockInput {
  email?: string;
  canonicalEmailHash?: string;
  /** The account whose address this is, when known. */
  referenceAccountId?: string | null;
}

/** Blocks an address, with its audit row. ValidationError: blank, malformed, already blocked. */
export async function createCanonicalEmailBlock(
  db: Executor,
  actor: Actor,
  input: CanonicalEmailBlockInput,
): Promise<CanonicalEmailBlockRow> {
  const email = input.email?.trim() ?? "";
  let hash: string;
  if (email !== "") {
    if (email.length > EMAIL_MAX || !email.includes("@")) {
      throw invalid("email", "ERR_INVALID", "is invalid");
    }
    hash = await canonicalEmailHash(email);
  } else {
    hash = input.canonicalEmailHash?.trim().toLowerCase() ?? "";
    if (hash === "") throw invalid("canonical_email_hash", "ERR_BLANK", "can't be blank");
    if (!isCanonicalEmailHash(hash)) {
      throw invalid("canonical_email_hash", "ERR_INVALID", "is invalid");
    }
  }
  return await db.transaction(async (tx) => {
    const [row] = await tx.insert(canonicalEmailBlocks).values({
      id: newId(),
      canonicalEmailHash: hash,
      referenceAccountId: input.referenceAccountId ?? null,
    }).onConflictDoNothing({ target: canonicalEmailBlocks.canonicalEmailHash }).returning();
    if (!row) throw invalid("canonical_email_hash", "ERR_TAKEN", "has already been taken");
    await recordAdminAction(tx, {
      accountId: actor,
      action: "create",
      targetType: "CanonicalEmailBlock",
      targetId: row.id,
      humanIdentifier: row.canonicalEmailHash,
    });
    return row;
  });
}

/** Lifts a block, with its audit row. NotFoundError when there is none. */
export async function deleteCanonicalEmailBlock(
  db: Executor,
  actor: Actor,
  id: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.delete(canonicalEmailBlocks).where(eq(canonicalEmailBlocks.id, id))
      .returning();
    if (!row) throw new NotFoundError();
    await recordAdminAction(tx, {
      accountId: actor,
      action: "destroy",
      targetType: "CanonicalEmailBlock",
      targetId: row.id,
      humanIdentifier: row.canonicalEmailHash,
    });
  });
}
