/**
 * What staff do to an account (Mastodon's Admin::AccountAction and the
 * admin accounts controller): approve, reject, the action none | sensitive
 * | disable | silence | suspend (with a warning, a report to resolve and an
 * e-mail), enable, unsilence, unsensitive, unsuspend, and deleting the data
 * of a suspended account. The admin API and the admin command line both
 * call these; each runs in one transaction with its audit row
 * (actors/moderation/audit_log.ts), and refuses what Mastodon's policies refuse:
 *
 * - acting on a local account whose role is not below the moderator's own
 *   (Mastodon's `UserRole#overrides?`): NotAllowedError (403);
 * - unsuspending an account another server suspended, or deleting the
 *   data of one that is not suspended by us: NotAllowedError;
 * - approving, rejecting or enabling a remote account: NotAllowedError;
 * - approving or rejecting an account that is not pending, disabling a
 *   remote account, an unknown action type: ValidationError (422);
 * - unknown and deleted accounts, unknown reports: NotFoundError (404).
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { isId, newId } from "../../db/ids.ts";
import { accounts, accountWarnings, keyPairs, reports, users } from "../../db/schema/mod.ts";
import { recordAdminAction } from "./audit_log.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { hasPermission, outranks } from "../../model/permissions.ts";
import { type MailContext, sendMail } from "../net/mailer.ts";
import { notify } from "../notifications/notify.ts";
import { purgeAccountData, suspendAccount, unsuspendAccount } from "./suspension.ts";
import { purgeAccountMedia } from "../media/removal.ts";

/** Who acts: a staff member (account and role), or the machine's operator (accountId null). */
export interface Moderator {
  accountId: string | null;
  role: string;
}

/** The admin command line: the operator, above every role. */
export const OPERATOR: Moderator = { accountId: null, role: "owner" };

/** A policy refusal (the API's 403 "This action is not allowed"). */
export class NotAllowedError extends Error {
  constructor() {
    super("This action is not allowed");
  }
}

/** The types of POST /api/v1/admin/accounts/:id/action. */
export const ACTION_TYPES = ["none", "sensitive", "disable", "silence", "suspend"] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Longest warning text kept (Mastodon bounds it by the request size only). */
export const WARNING_TEXT_MAX = 5_000;

type AccountRow = typeof accounts.$inferSelect;
type UserRow = typeof users.$inferSelect;
interface Target {
  account: AccountRow;
  user: UserRow | null;
}

/** `user` or `user@domain`, for the audit log. */
function acctOfRow(account: Pick<AccountRow, "username" | "domain">): string {
  return account.domain ? `${account.username}@${account.domain}` : account.username;
}

/** Loads and locks the target account; NotFoundError for unknown or deleted ones. */
async function lockTarget(tx: Executor, id: string): Promise<Target> {
  if (!isId(id)) throw new NotFoundError();
  const [account] = await tx.select().from(accounts).where(eq(accounts.id, id)).for("update");
  if (!account || account.deletedAt) throw new NotFoundError();
  const [user] = await tx.select().from(users).where(eq(users.accountId, id));
  return { account, user: user ?? null };
}

/**
 * Whether `moderator` may act on `target`: the command line always; staff
 * on remote accounts and on local ones whose role ranks below theirs.
 */
function mayActOn(moderator: Moderator, target: Target): boolean {
  if (moderator.accountId == null) return true;
  if (!hasPermission(moderator.role, "manage_users")) return false;
  if (!target.user) return true;
  return outranks(moderator.role, target.user.role);
}

function requireMayActOn(moderator: Moderator, target: Target): void {
  if (!mayActOn(moderator, target)) throw new NotAllowedError();
}

async function audit(
  tx: Executor,
  moderator: Moderator,
  action: string,
  target: Target,
  type: "Account" | "User" = "Account",
): Promise<void> {
  await recordAdminAction(tx, {
    accountId: moderator.accountId,
    action,
    targetType: type,
    targetId: type === "User" && target.user ? target.user.id : target.account.id,
    humanIdentifier: acctOfRow(target.account),
  });
}

function invalid(field: string, description: string): never {
  const problems = new Problems();
  problems.add(field, "ERR_INVALID", description);
  problems.throwIfAny();
  throw new Error("unreachable");
}

/** Runs one command: the target locked, the policy checked, then `body`; returns the account id. */
async function command(
  db: Executor,
  moderator: Moderator,
  id: string,
  body: (tx: Executor, target: Target) => Promise<void>,
): Promise<string> {
  return await db.transaction(async (tx) => {
    const target = await lockTarget(tx, id);
    requireMayActOn(moderator, target);
    await body(tx, target);
    return target.account.id;
  });
}

/** approve, reject and enable apply to local users only (Mastodon: 403 otherwise). */
function requireLocalUser(target: Target): UserRow {
  if (!target.user) throw new NotAllowedError();
  return target.user;
}

function requirePending(target: Target): UserRow {
  const user = requireLocalUser(target);
  if (user.approved) invalid("base", "This account is not pending approval");
  return user;
}

/** Approves a pending sign-up. */
export function approveAccount(db: Executor, moderator: Moderator, id: string): Promise<string> {
  return command(db, moderator, id, async (tx, target) => {
    const user = requirePending(target);
    await tx.update(users).set({ approved: true }).where(eq(users.id, user.id));
    await audit(tx, moderator, "approve", target, "User");
  });
}

/**
 * Rejects a pending sign-up: the account and its user are deleted outright
 * (it never federated), so the name and address may be used again. Its
 * media files are discarded with the rows (the worker's media cleanup
 * removes them from the store).
 */
export function rejectAccount(db: Executor, moderator: Moderator, id: string): Promise<string> {
  return command(db, moderator, id, async (tx, target) => {
    requirePending(target);
    await audit(tx, moderator, "reject", target, "User");
    await purgeAccountMedia(tx, target.account);
    await tx.delete(keyPairs).where(eq(keyPairs.owner, target.account.id));
    await tx.delete(accounts).where(eq(accounts.id, target.account.id));
  });
}

/** Lifts a disable. */
export function enableAccount(db: Executor, moderator: Moderator, id: string): Promise<string> {
  return command(db, moderator, id, async (tx, target) => {
    const user = requireLocalUser(target);
    await tx.update(users).set({ disabled: false }).where(eq(users.id, user.id));
    await audit(tx, moderator, "enable", target, "User");
  });
}

/** Lifts a silence (limit). */
export function unsilenceAccount(db: Executor, moderator: Moderator, id: string): Promise<string> {
  return command(db, moderator, id, async (tx, target) => {
    await tx.update(accounts).set({ silencedAt: null }).where(eq(accounts.id, target.account.id));
    await audit(tx, moderator, "unsilence", target);
  });
}

/** Lifts the forced sensitive marking of its media. */
export function unsensitiveAccount(
  db: Executor,
  moderator: Moderator,
  id: string,
): Promise<string> {
  return command(db, moderator, id, async (tx, target) => {
    await tx.update(accounts).set({ sensitizedAt: null }).where(eq(accounts.id, target.account.id));
    await audit(tx, moderator, "unsensitive", target);
  });
}

/** Lifts a suspension our moderators made (not one the account's own server made). */
export function unsuspendAccountCommand(
  db: Executor,
  moderator: Moderator,
  id: string,
): Promise<string> {
  return command(db, moderator, id, async (tx, target) => {
    if (!target.account.suspendedAt || target.account.suspensionOrigin === "remote") {
      throw new NotAllowedError();
    }
    await unsuspendAccount(tx, target.account);
    await audit(tx, moderator, "unsuspend", target);
  });
}

/**
 * Deletes the data of an account our moderators suspended, before the
 * grace period ends. Needs delete_user_data (admins), as Mastodon.
 */
export function deleteAccountData(
  db: Executor,
  moderator: Moderator,
  id: string,
): Promise<string> {
  return command(db, moderator, id, async (tx, target) => {
    const allowed = moderator.accountId == null ||
      hasPermission(moderator.role, "delete_user_data");
    if (!allowed || !target.account.suspendedAt || target.account.suspensionOrigin === "remote") {
      throw new NotAllowedError();
    }
    await audit(tx, moderator, "destroy", target);
    await purgeAccountData(tx, target.account);
  });
}

/** The parameters of {@link performAction}. */
export interface ActionInput {
  type: string;
  reportId?: string | null;
  warningPresetId?: string | null;
  text?: string | null;
  /** Default true, as Mastodon. */
  sendEmailNotification?: boolean;
}

/** What an action did, for the caller to report. */
export interface ActionOutcome {
  accountId: string;
  warningId: string;
  resolvedReports: string[];
  /** The address to tell, when an e-mail is to go out (sent after commit). */
  notify: { email: string; username: string } | null;
}

function checkActionInput(input: ActionInput): ActionType {
  const problems = new Problems();
  if (!(ACTION_TYPES as readonly string[]).includes(input.type)) {
    problems.add("type", "ERR_INCLUSION", `is not one of ${ACTION_TYPES.join(", ")}`);
  }
  if ((input.text ?? "").length > WARNING_TEXT_MAX) {
    problems.add("text", "ERR_TOO_LONG", `is too long (maximum is ${WARNING_TEXT_MAX} characters)`);
  }
  problems.throwIfAny();
  // Rookery has no warning presets: any id names one that does not exist (Mastodon: 404).
  if (input.warningPresetId) throw new NotFoundError();
  return input.type as ActionType;
}

/**
 * Takes a moderation action against an account, as Mastodon's
 * Admin::AccountAction: the action itself, a warning (account_warnings row)
 * with its text, the report resolved (for any type but `none`, every
 * unresolved report on the account, as Mastodon resolves them all), one
 * audit row per change, and, when asked and the account is local, a
 * `moderation_warning` notification (in the transaction) and an e-mail
 * (sent once the transaction has committed) telling the person.
 */
export async function performAction(
  db: Executor,
  mail: MailContext,
  moderator: Moderator,
  id: string,
  input: ActionInput,
): Promise<ActionOutcome> {
  const type = checkActionInput(input);
  const outcome = await db.transaction(async (tx): Promise<ActionOutcome> => {
    const target = await lockTarget(tx, id);
    requireMayActOn(moderator, target);
    let report: typeof reports.$inferSelect | null = null;
    if (input.reportId != null && input.reportId !== "") {
      if (!isId(input.reportId)) throw new NotFoundError();
      [report] = await tx.select().from(reports).where(eq(reports.id, input.reportId));
      if (!report) throw new NotFoundError();
    }
    const now = new Date();
    switch (type) {
      case "disable":
        if (!target.user) invalid("type", "disable applies to local accounts only");
        await tx.update(users).set({ disabled: true }).where(eq(users.id, target.user.id));
        await audit(tx, moderator, "disable", target, "User");
        break;
      case "sensitive":
        await tx.update(accounts).set({ sensitizedAt: now })
          .where(eq(accounts.id, target.account.id));
        await audit(tx, moderator, "sensitive", target);
        break;
      case "silence":
        await tx.update(accounts).set({ silencedAt: now })
          .where(eq(accounts.id, target.account.id));
        await audit(tx, moderator, "silence", target);
        break;
      case "suspend":
        await suspendAccount(tx, target.account);
        await audit(tx, moderator, "suspend", target);
        break;
      case "none":
        break;
    }
    const warningId = newId();
    await tx.insert(accountWarnings).values({
      id: warningId,
      accountId: moderator.accountId,
      targetAccountId: target.account.id,
      action: type,
      text: input.text ?? "",
      reportId: report?.id ?? null,
      statusIds: report?.statusIds ?? [],
    });
    if (type === "none") {
      await recordAdminAction(tx, {
        accountId: moderator.accountId,
        action: "create",
        targetType: "AccountWarning",
        targetId: warningId,
        humanIdentifier: acctOfRow(target.account),
      });
    }
    const resolved = await resolveReports(tx, moderator, target, report, type);
    const mail = input.sendEmailNotification ?? true;
    // Mastodon's `warnable?`: the person is told (e-mail and notification)
    // when the moderator asks for it and the account is local. Its sender is
    // the person themselves, as Mastodon records it.
    if (mail && target.user) {
      await notify(tx, {
        type: "moderation_warning",
        accountId: target.account.id,
        fromAccountId: target.account.id,
        accountWarningId: warningId,
      });
    }
    return {
      accountId: target.account.id,
      warningId,
      resolvedReports: resolved,
      notify: mail && target.user
        ? { email: target.user.email, username: target.account.username }
        : null,
    };
  });
  if (outcome.notify) await mailWarning(mail, outcome.notify, type, input.text ?? "");
  return outcome;
}

/** Resolves the reports an action settles (see below), each with its audit row. */
async function resolveReports(
  tx: Executor,
  moderator: Moderator,
  target: Target,
  report: typeof reports.$inferSelect | null,
  type: ActionType,
): Promise<string[]> {
  const now = new Date();
  const unresolved = and(
    isNull(reports.actionTakenAt),
    eq(reports.targetAccountId, target.account.id),
  );
  // `none` resolves the report given (other reports may hold news); a real
  // action resolves every open report on the account, as Mastodon does.
  const which = type === "none"
    ? (report ? and(eq(reports.id, report.id), isNull(reports.actionTakenAt)) : sql`false`)
    : unresolved;
  const rows = await tx.update(reports).set({
    actionTakenAt: now,
    actionTakenByAccountId: moderator.accountId,
    updatedAt: now,
  }).where(which).returning({ id: reports.id, targetId: reports.targetAccountId });
  for (const row of rows) {
    await recordAdminAction(tx, {
      accountId: moderator.accountId,
      action: "resolve",
      targetType: "Report",
      targetId: row.id,
      humanIdentifier: acctOfRow(target.account),
    });
  }
  return rows.map((r) => r.id);
}

const ACTION_WORDS: Record<ActionType, string> = {
  none: "You have received a warning from the moderators",
  sensitive: "Your media will be marked as sensitive from now on",
  disable: "Your account has been frozen: you can no longer sign in",
  silence: "Your account has been limited: your posts are shown only to your followers",
  suspend: "Your account has been suspended",
};

/** Tells the person what was done (Mastodon's UserMailer#warning). Failures are not the action's. */
async function mailWarning(
  mail: MailContext,
  to: { email: string; username: string },
  type: ActionType,
  text: string,
): Promise<void> {
  const { config } = mail;
  const lines = [`Hello ${to.username},`, "", `${ACTION_WORDS[type]} on ${config.instance.title}.`];
  if (text) lines.push("", "The moderators wrote:", "", text);
  try {
    await sendMail(mail, {
      to: to.email,
      subject: `${ACTION_WORDS[type]} (${config.instance.title})`,
      text: lines.join("\n"),
    });
  } catch {
    // The action stands; the mail relay's trouble is logged by the mailer.
  }
}

/**
 * The id of the account a handle names: `user` (local) or `user@domain`
 * (remote, as stored); a leading "@" is ignored. NotFoundError otherwise.
 */
export async function accountIdByHandle(db: Executor, handle: string): Promise<string> {
  const name = handle.trim().replace(/^@/, "");
  const at = name.indexOf("@");
  const username = at < 0 ? name : name.slice(0, at);
  const domain = at < 0 ? null : name.slice(at + 1);
  if (!username || username.length > 200 || (domain != null && !domain)) {
    throw new NotFoundError(`No account named @${name.slice(0, 60).replace(/[^\x20-\x7e]/g, "?")}`);
  }
  const [row] = await db.select({ id: accounts.id }).from(accounts).where(and(
    sql`lower(${accounts.username}) = ${username.toLowerCase()}`,
    domain == null
      ? isNull(accounts.domain)
      : sql`lower(${accounts.domain}) = ${domain.toLowerCase()}`,
    isNull(accounts.deletedAt),
  )).limit(1);
  if (!row) {
    throw new NotFoundError(`No account named @${name.slice(0, 60).replace(/[^\x20-\x7e]/g, "?")}`);
  }
  return row.id;
}
