/**
 * What a server operator does to local accounts: confirm, approve, disable,
 * enable, change the role, reset the password, delete. The admin command line
 * calls these today and the admin REST API will call the same functions, so a
 * rule (for example "a password reset signs every app out") lives in one place.
 *
 * Every function takes a username (case-insensitive, an optional leading "@"
 * is ignored) and throws NotFoundError when no live local account has it.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, oauthAccessTokens, users } from "../../db/schema/mod.ts";
import { findLocalUser } from "../accounts/accounts.ts";
import { isRole, ROLES } from "../../model/permissions.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { generatePassword, hashPassword } from "../auth/passwords.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { tombstoneAccount } from "../accounts/tombstone.ts";
import type { DeletionRecipient } from "../outbox/relationships.ts";
import { accountReach } from "../../db/queries/account_reach.ts";

type LocalUser = NonNullable<Awaited<ReturnType<typeof findLocalUser>>>;

/** Shows an operator-supplied name safely in a message (no control characters, bounded). */
export function printableName(username: string): string {
  const clean = username.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}

/** Finds a live local account by username, or throws NotFoundError. */
export async function requireLocalUser(db: Executor, username: string): Promise<LocalUser> {
  const name = username.startsWith("@") ? username.slice(1) : username;
  // Names longer than any valid username cannot exist; skip the query.
  const row = name.length > 0 && name.length <= 200 ? await findLocalUser(db, name) : null;
  if (!row) throw new NotFoundError(`No local account named @${printableName(name)}`);
  return row;
}

/** One row of {@link listLocalUsers}. */
export interface LocalUserSummary {
  username: string;
  email: string;
  role: string;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  createdAt: Date;
}

/** Every local account that can sign in (deleted accounts have no user row), oldest first. */
export async function listLocalUsers(db: Executor): Promise<LocalUserSummary[]> {
  const rows = await db.select({
    username: accounts.username,
    email: users.email,
    role: users.role,
    confirmedAt: users.confirmedAt,
    approved: users.approved,
    disabled: users.disabled,
    createdAt: users.createdAt,
  }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(isNull(accounts.deletedAt))
    .orderBy(asc(users.createdAt), asc(users.id));
  return rows.map(({ confirmedAt, ...rest }) => ({ ...rest, confirmed: confirmedAt != null }));
}

/**
 * Outcome of a state change: `changed` is false when the account was already
 * in the requested state, so callers can say so instead of pretending.
 */
export interface StateChange {
  username: string;
  changed: boolean;
}

async function updateUser(
  db: Executor,
  username: string,
  isAlready: (user: LocalUser["user"]) => boolean,
  values: Partial<typeof users.$inferInsert>,
): Promise<StateChange> {
  const { account, user } = await requireLocalUser(db, username);
  if (isAlready(user)) return { username: account.username, changed: false };
  await db.update(users).set(values).where(eq(users.id, user.id));
  return { username: account.username, changed: true };
}

/** Marks the e-mail address as confirmed. */
export function confirmUser(db: Executor, username: string): Promise<StateChange> {
  return updateUser(db, username, (u) => u.confirmedAt != null, { confirmedAt: new Date() });
}

/** Approves a sign-up that waits for approval. */
export function approveUser(db: Executor, username: string): Promise<StateChange> {
  return updateUser(db, username, (u) => u.approved, { approved: true });
}

/**
 * Disables sign-in. Tokens are kept, as Mastodon does, so enabling the account
 * again restores the person's apps; the API refuses them while disabled.
 */
export function disableUser(db: Executor, username: string): Promise<StateChange> {
  return updateUser(db, username, (u) => u.disabled, { disabled: true });
}

/** Lifts {@link disableUser}. */
export function enableUser(db: Executor, username: string): Promise<StateChange> {
  return updateUser(db, username, (u) => !u.disabled, { disabled: false });
}

/** Changes the role (owner, admin, moderator, user). */
export function setUserRole(db: Executor, username: string, role: string): Promise<StateChange> {
  if (!isRole(role)) {
    const problems = new Problems();
    problems.add("role", "ERR_INCLUSION", `is not one of ${ROLES.join(", ")}`);
    problems.throwIfAny();
  }
  return updateUser(db, username, (u) => u.role === role, { role });
}

/** Outcome of {@link resetPassword}. */
export interface PasswordReset {
  username: string;
  /** The new password in plain text: shown once, stored only as a hash. */
  password: string;
  /** How many live access tokens were revoked. */
  revokedTokens: number;
}

/**
 * Sets a new random password and revokes every access token of the user, in
 * one transaction: a reset usually follows a suspected compromise, and a
 * stolen token must not outlive it.
 */
export async function resetPassword(db: Executor, username: string): Promise<PasswordReset> {
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  return await db.transaction(async (tx) => {
    const { account, user } = await requireLocalUser(tx, username);
    await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    const revoked = await tx.update(oauthAccessTokens).set({ revokedAt: new Date() })
      .where(and(eq(oauthAccessTokens.userId, user.id), isNull(oauthAccessTokens.revokedAt)))
      .returning({ id: oauthAccessTokens.id });
    return { username: account.username, password, revokedTokens: revoked.length };
  });
}

/** Outcome of {@link deleteLocalAccount}. */
export interface AccountDeletion {
  accountId: string;
  username: string;
  /** Follows removed (both directions). */
  removedFollows: number;
  /** Remote accounts related to it (captured before the follows went), to hear of the deletion. */
  recipients: DeletionRecipient[];
}

/**
 * Deletes a local account, leaving a tombstone.
 *
 * The accounts row stays as a tombstone (actors/accounts/tombstone.ts: profile
 * emptied, statuses marked deleted, media and follows both ways gone) so the
 * username is never handed out again and the actor IRI can answer 410 Gone;
 * its key pair stays too, because the Delete activity must be signed with it.
 * The users row goes, and with it (by cascade) the access tokens and login
 * history. Media files leave the store only once the caller's transaction
 * committed and it called flushDiscardedMedia (or the worker's hourly
 * cleanup did).
 *
 * Federation: the transaction records the Delete(Person) (`accountDeleted`,
 * actors/outbox/relationships.ts) so the servers in the account's reach (followers,
 * followees, reporters, recently mentioned or interacted with) hear of
 * it, with the remote accounts to notify (`recipients`) captured before the
 * follows went; a rolled-back deletion takes it along. Without a running
 * server it waits in the database for the next worker's relay.
 */
export async function deleteLocalAccount(
  db: Executor,
  username: string,
): Promise<AccountDeletion> {
  const deletion = await db.transaction(async (tx) => {
    const { account: found, user } = await requireLocalUser(tx, username);
    // Lock the row so a concurrent delete, follow or profile change waits for
    // this one; read after the lock, its avatar and header are the current ones.
    const [account] = await tx.select().from(accounts).where(eq(accounts.id, found.id))
      .for("update");
    // Everyone whose server holds a copy of the account (db/queries/account_reach.ts),
    // captured before the follows go.
    const recipients: DeletionRecipient[] = await accountReach(tx, account.id);
    const removedFollows = await tombstoneAccount(tx, account);
    await tx.delete(users).where(eq(users.id, user.id));
    if (recipients.length) await recordDelivery(tx, "accountDeleted", account.id, recipients);
    return {
      accountId: account.id,
      username: account.username,
      removedFollows,
      recipients,
    };
  });
  return deletion;
}
