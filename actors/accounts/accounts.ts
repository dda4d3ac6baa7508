/**
 * Commands on local accounts: creating one (with its sign-in record) and
 * changing its sign-in state. The admin command line and, later, registration
 * through the API both call these.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { Problems, ValidationError } from "../../model/errors.ts";
import { isRole, ROLES, type UserRole } from "../../model/permissions.ts";
import { hashPassword } from "../auth/passwords.ts";
import { isValidEmail } from "../auth/email_address.ts";
import { localUris } from "../../model/uris.ts";

export const USERNAME_PATTERN = /^[a-z0-9_]+$/i;
export const USERNAME_MAX = 30;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 72;
/** Names that would impersonate the server or collide with its routes. */
export const RESERVED_USERNAMES = new Set([
  "admin",
  "administrator",
  "root",
  "support",
  "help",
  "moderator",
  "moderators",
  "staff",
  "system",
  "instance",
  "actor",
  "webmaster",
  "postmaster",
  "hostmaster",
  "abuse",
  "security",
  "mastodon",
  "rookery",
  "about",
  "api",
  "oauth",
  "users",
  "inbox",
  "nodeinfo",
  "well-known",
]);

export interface NewLocalAccount {
  username: string;
  email: string;
  password: string;
  role?: UserRole;
  /** Email confirmed already (admin-created accounts usually are). */
  confirmed?: boolean;
  /** Approved already (matters when registrations need approval). */
  approved?: boolean;
  locale?: string;
  reason?: string | null;
  bot?: boolean;
  /** Reserved names are allowed for the operator's own accounts. */
  allowReserved?: boolean;
  /** An e-mail host without a dot (`admin@localhost`), for the admin command line. */
  allowDotlessEmailHost?: boolean;
}

export interface LocalUrls {
  /** The public origin, e.g. https://example.com */
  origin: string;
}

/** Actor and profile URLs of a local account, as its row stores them (model/uris.ts). */
export function localAccountUris(origin: string, username: string) {
  const uris = localUris(origin);
  return {
    uri: uris.actor(username),
    url: uris.profile(username),
    inboxUrl: uris.inbox(username),
    sharedInboxUrl: uris.sharedInbox(),
    outboxUrl: uris.outbox(username),
    followersUrl: uris.followers(username),
    followingUrl: uris.following(username),
    featuredUrl: uris.featured(username),
    featuredTagsUrl: uris.featuredTags(username),
  };
}

/**
 * The rules of a new password, the same at sign-up, reset and change: adds
 * its problems (under `password`) to `problems`.
 */
export function checkNewPassword(password: string, problems: Problems): void {
  if (password === "") problems.add("password", "ERR_BLANK", "can't be blank");
  else if (password.length < PASSWORD_MIN) {
    problems.add(
      "password",
      "ERR_TOO_SHORT",
      `is too short (minimum is ${PASSWORD_MIN} characters)`,
    );
  } else if (password.length > PASSWORD_MAX) {
    problems.add("password", "ERR_TOO_LONG", `is too long (maximum is ${PASSWORD_MAX} characters)`);
  }
}

/** Checks a new account's input; throws ValidationError with Mastodon's codes. */
export async function validateNewAccount(db: Executor, input: NewLocalAccount): Promise<void> {
  const problems = new Problems();
  const username = input.username ?? "";
  if (username === "") problems.add("username", "ERR_BLANK", "can't be blank");
  else if (!USERNAME_PATTERN.test(username)) {
    problems.add("username", "ERR_INVALID", "must contain only letters, numbers and underscores");
  } else if (username.length > USERNAME_MAX) {
    problems.add("username", "ERR_TOO_LONG", `is too long (maximum is ${USERNAME_MAX} characters)`);
  } else if (!input.allowReserved && RESERVED_USERNAMES.has(username.toLowerCase())) {
    problems.add("username", "ERR_RESERVED", "is reserved");
  } else {
    const [taken] = await db.select({ id: accounts.id }).from(accounts).where(and(
      isNull(accounts.domain),
      sql`lower(${accounts.username}) = ${username.toLowerCase()}`,
    )).limit(1);
    if (taken) problems.add("username", "ERR_TAKEN", "is already taken");
  }
  const email = input.email ?? "";
  if (email === "") {
    // Both, as Rails reports both validations (presence and the address's format).
    problems.add("email", "ERR_BLANK", "can't be blank");
    problems.add("email", "ERR_INVALID", "is invalid");
  } else if (!isValidEmail(email, { dotlessHost: input.allowDotlessEmailHost })) {
    problems.add("email", "ERR_INVALID", "is invalid");
  } else {
    const [taken] = await db.select({ id: users.id }).from(users)
      .where(sql`lower(${users.email}) = ${email.toLowerCase()}`).limit(1);
    if (taken) problems.add("email", "ERR_TAKEN", "is already taken");
  }
  checkNewPassword(input.password ?? "", problems);
  if (input.role && !isRole(input.role)) {
    problems.add("role", "ERR_INCLUSION", `is not one of ${ROLES.join(", ")}`);
  }
  problems.throwIfAny();
}

/**
 * Creates a local account and its user in one transaction. Key pairs are made
 * on first use by federation/dispatchers/keys.ts.
 */
export async function createLocalAccount(
  db: Executor,
  origin: string,
  input: NewLocalAccount,
) {
  return await db.transaction(async (tx) => {
    await validateNewAccount(tx, input);
    const passwordHash = await hashPassword(input.password);
    const accountId = newId();
    const [account] = await tx.insert(accounts).values({
      id: accountId,
      username: input.username,
      domain: null,
      actorType: input.bot ? "Service" : "Person",
      ...localAccountUris(origin, input.username),
    }).returning();
    const [user] = await tx.insert(users).values({
      id: newId(),
      accountId,
      email: input.email,
      passwordHash,
      role: input.role ?? "user",
      confirmedAt: input.confirmed ? new Date() : null,
      approved: input.approved ?? true,
      locale: input.locale ?? "en",
      reason: input.reason ?? null,
    }).returning();
    return { account, user };
  }).catch((error) => {
    throw takenRace(error) ?? error;
  });
}

/**
 * Two creations of one name or e-mail at the same moment both pass validation;
 * the unique index stops the second, which then gets the same answer it would
 * have got a moment later instead of a database error.
 */
function takenRace(error: unknown): ValidationError | null {
  for (let e: any = error; e; e = e.cause) {
    if (e.code !== "23505") continue;
    const field = String(e.constraint_name ?? e.constraint ?? e.message).includes("email")
      ? "email"
      : "username";
    return new ValidationError({
      [field]: [{ error: "ERR_TAKEN", description: "is already taken" }],
    });
  }
  return null;
}

/** Finds a local account and its user by username (case-insensitive). */
export async function findLocalUser(db: Executor, username: string) {
  const [row] = await db.select({ account: accounts, user: users }).from(accounts)
    .innerJoin(users, eq(users.accountId, accounts.id))
    .where(
      and(isNull(accounts.domain), sql`lower(${accounts.username}) = ${username.toLowerCase()}`),
    )
    .limit(1);
  return row ?? null;
}
