/**
 * IP blocks (Mastodon's IpBlock): an address or a network (CIDR) with a
 * severity. `sign_up_requires_approval` leaves its sign-ups waiting for
 * staff, `sign_up_block` refuses them, `no_access` refuses every request
 * (api/middleware/ip_access.ts). A block may expire; past `expires_at` it is
 * ignored and no longer listed, as Mastodon's cleanup would have removed it.
 */
import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Database, Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { IP_BLOCK_SEVERITIES, ipBlocks, type IpBlockSeverity } from "../../db/schema/mod.ts";
import { type Actor, recordAdminAction } from "../moderation/audit_log.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { formatNetwork, parseNetwork } from "./cidr.ts";
import { invalidateIpBlocks, type IpBlocksHolder } from "./ip_block_cache.ts";
import { newestFirst, type Page, pageWindow } from "../../db/queries/id_paging.ts";

/** Where the commands below write, and the process's copy they drop. */
export interface IpBlocksApp extends IpBlocksHolder {
  readonly database: Database;
}

export type IpBlockRow = typeof ipBlocks.$inferSelect;

/** Longest comment kept (Mastodon sets none; a bound keeps the table sane). */
export const IP_BLOCK_COMMENT_MAX = 1_000;
/** Longest expires_in: ten years, in seconds. */
export const IP_BLOCK_EXPIRES_IN_MAX = 10 * 366 * 24 * 60 * 60;

/** What staff send to create or change a block (absent: unchanged on update). */
export interface IpBlockInput {
  ip?: string;
  severity?: string;
  comment?: string;
  /** Seconds from now; null clears the expiry (update), absent leaves it. */
  expiresIn?: number | null;
}

function isSeverity(value: string): value is IpBlockSeverity {
  return (IP_BLOCK_SEVERITIES as readonly string[]).includes(value);
}

/** The block's network as Mastodon's entity shows it (`192.0.2.0/24`, `192.0.2.7/32`). */
export function ipBlockNetwork(row: IpBlockRow): string {
  const network = parseNetwork(row.ip);
  return network ? formatNetwork(network) : row.ip;
}

const live = (now: Date) => or(isNull(ipBlocks.expiresAt), gt(ipBlocks.expiresAt, now));

/** A page of live blocks, newest first. */
export async function listIpBlocks(db: Executor, page: Page): Promise<IpBlockRow[]> {
  const q = pageWindow(ipBlocks.id, page);
  const rows = await db.select().from(ipBlocks).where(and(live(new Date()), q.where)).orderBy(
    q.order,
  ).limit(page.limit);
  return newestFirst(rows, q.reverse);
}

/** One live block; NotFoundError otherwise. */
export async function getIpBlock(db: Executor, id: string): Promise<IpBlockRow> {
  const [row] = await db.select().from(ipBlocks)
    .where(and(eq(ipBlocks.id, id), live(new Date()))).limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

/** Checks the input; returns the normalized network and the fields to write. */
function validate(input: IpBlockInput, creating: boolean, now: Date) {
  const problems = new Problems();
  const values: Partial<typeof ipBlocks.$inferInsert> = {};
  if (creating || input.ip !== undefined) {
    const raw = input.ip?.trim() ?? "";
    const network = raw === "" ? null : parseNetwork(raw);
    if (raw === "") problems.add("ip", "ERR_BLANK", "can't be blank");
    else if (!network) problems.add("ip", "ERR_INVALID", "is invalid");
    else values.ip = formatNetwork(network);
  }
  if (creating || input.severity !== undefined) {
    const severity = input.severity?.trim() ?? "";
    if (severity === "") problems.add("severity", "ERR_BLANK", "can't be blank");
    else if (!isSeverity(severity)) {
      problems.add("severity", "ERR_INCLUSION", "is not included in the list");
    } else values.severity = severity;
  }
  if (input.comment !== undefined) {
    // PostgreSQL text cannot hold NUL.
    if (input.comment.includes("\0")) problems.add("comment", "ERR_INVALID", "is invalid");
    else if ([...input.comment].length > IP_BLOCK_COMMENT_MAX) {
      problems.add(
        "comment",
        "ERR_TOO_LONG",
        `is too long (maximum is ${IP_BLOCK_COMMENT_MAX} characters)`,
      );
    } else values.comment = input.comment;
  }
  if (input.expiresIn === null) values.expiresAt = null;
  else if (input.expiresIn !== undefined) {
    if (input.expiresIn <= 0 || input.expiresIn > IP_BLOCK_EXPIRES_IN_MAX) {
      problems.add(
        "expires_in",
        "ERR_INCLUSION",
        `must be between 1 and ${IP_BLOCK_EXPIRES_IN_MAX} seconds`,
      );
    } else values.expiresAt = new Date(now.getTime() + input.expiresIn * 1000);
  }
  problems.throwIfAny();
  return values;
}

function taken(): Problems {
  const problems = new Problems();
  problems.add("ip", "ERR_TAKEN", "has already been taken");
  return problems;
}

/**
 * Whether another block holds the same network. An expired one does not
 * count: it is removed to make room, as Mastodon's cleanup would have.
 */
async function clearForNetwork(tx: Executor, ip: string, exceptId: string | null, now: Date) {
  const [other] = await tx.select().from(ipBlocks).where(eq(ipBlocks.ip, ip)).limit(1);
  if (!other || other.id === exceptId) return;
  if (other.expiresAt && other.expiresAt <= now) {
    await tx.delete(ipBlocks).where(eq(ipBlocks.id, other.id));
    return;
  }
  taken().throwIfAny();
}

/** Creates a block, with its audit row. ValidationError: ip, severity, comment, expires_in. */
export async function createIpBlock(
  app: IpBlocksApp,
  actor: Actor,
  input: IpBlockInput,
): Promise<IpBlockRow> {
  const now = new Date();
  const values = validate(input, true, now);
  const row = await app.database.db.transaction(async (tx) => {
    await clearForNetwork(tx, values.ip!, null, now);
    const [row] = await tx.insert(ipBlocks).values({
      id: newId(),
      ip: values.ip!,
      severity: values.severity!,
      comment: values.comment ?? "",
      expiresAt: values.expiresAt ?? null,
    }).onConflictDoNothing({ target: ipBlocks.ip }).returning();
    // Another request blocked the same network meanwhile.
    if (!row) taken().throwIfAny();
    await recordAdminAction(tx, {
      accountId: actor,
      action: "create",
      targetType: "IpBlock",
      targetId: row.id,
      humanIdentifier: ipBlockNetwork(row),
    });
    return row;
  });
  invalidateIpBlocks(app);
  return row;
}

function isUniqueViolation(error: unknown): boolean {
  // deno-lint-ignore no-explicit-any
  for (let e: any = error; e; e = e.cause) if (e.code === "23505") return true;
  return false;
}

/** Changes a live block, with its audit row. NotFoundError, ValidationError. */
export async function updateIpBlock(
  app: IpBlocksApp,
  actor: Actor,
  id: string,
  input: IpBlockInput,
): Promise<IpBlockRow> {
  const now = new Date();
  const values = validate(input, false, now);
  const row = await app.database.db.transaction(async (tx) => {
    await getIpBlock(tx, id);
    if (values.ip) await clearForNetwork(tx, values.ip, id, now);
    const [row] = await tx.update(ipBlocks).set({ ...values, updatedAt: now })
      .where(eq(ipBlocks.id, id)).returning();
    await recordAdminAction(tx, {
      accountId: actor,
      action: "update",
      targetType: "IpBlock",
      targetId: row.id,
      humanIdentifier: ipBlockNetwork(row),
    });
    return row;
  }).catch((error) => {
    // Another request took the network between our check and our write.
    if (isUniqueViolation(error)) taken().throwIfAny();
    throw error;
  });
  invalidateIpBlocks(app);
  return row;
}

/** Removes a block, with its audit row. NotFoundError when there is none. */
export async function deleteIpBlock(app: IpBlocksApp, actor: Actor, id: string): Promise<void> {
  await app.database.db.transaction(async (tx) => {
    const [row] = await tx.delete(ipBlocks).where(eq(ipBlocks.id, id)).returning();
    if (!row) throw new NotFoundError();
    await recordAdminAction(tx, {
      accountId: actor,
      action: "destroy",
      targetType: "IpBlock",
      targetId: row.id,
      humanIdentifier: ipBlockNetwork(row),
    });
  });
  invalidateIpBlocks(app);
}
