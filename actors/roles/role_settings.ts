/**
 * Per-role settings (migration 0045): what Mastodon's UserRole holds beyond
 * Rookery's fixed permission table (model/permissions.ts): whether members
 * must use two-factor sign-in, how many collections they may make, and
 * whether they get `manage_email_subscriptions` (permission bit 22). One
 * row per role, seeded for the four roles.
 *
 * Read straight from the table (one primary-key lookup): the readers are a
 * sign-in, a collection's creation, a credential view, a subscription; the
 * table's trigger notifies `rookery_role_settings` for a cache to come.
 */
import { eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { roleSettings, users } from "../../db/schema/mod.ts";
import { recordAdminAction } from "../moderation/audit_log.ts";

/** The settings of one role. */
export interface RoleSettings {
  role: string;
  requireTwoFactor: boolean;
  collectionLimit: number;
  emailSubscriptions: boolean;
}

/** What a role has when its row is missing (Mastodon's defaults). */
export const DEFAULT_ROLE_SETTINGS: Omit<RoleSettings, "role"> = {
  requireTwoFactor: false,
  collectionLimit: 10,
  emailSubscriptions: false,
};

const columns = {
  role: roleSettings.role,
  requireTwoFactor: roleSettings.requireTwoFactor,
  collectionLimit: roleSettings.collectionLimit,
  emailSubscriptions: roleSettings.emailSubscriptions,
};

/** The settings of `role`. */
export async function settingsOfRole(db: Executor, role: string): Promise<RoleSettings> {
  const [row] = await db.select(columns).from(roleSettings).where(eq(roleSettings.role, role))
    .limit(1);
  return row ?? { role, ...DEFAULT_ROLE_SETTINGS };
}

/** The settings of a local account's role; null for an account without a user (remote). */
export async function settingsOfAccount(
  db: Executor,
  accountId: string,
): Promise<RoleSettings | null> {
  const [row] = await db.select({
    role: users.role,
    requireTwoFactor: sql<boolean | null>`${roleSettings.requireTwoFactor}`,
    collectionLimit: sql<number | null>`${roleSettings.collectionLimit}`,
    emailSubscriptions: sql<boolean | null>`${roleSettings.emailSubscriptions}`,
  }).from(users).leftJoin(roleSettings, eq(roleSettings.role, users.role))
    .where(eq(users.accountId, accountId)).limit(1);
  if (!row) return null;
  return {
    role: row.role,
    requireTwoFactor: row.requireTwoFactor ?? DEFAULT_ROLE_SETTINGS.requireTwoFactor,
    collectionLimit: row.collectionLimit != null
      ? Number(row.collectionLimit)
      : DEFAULT_ROLE_SETTINGS.collectionLimit,
    emailSubscriptions: row.emailSubscriptions ?? DEFAULT_ROLE_SETTINGS.emailSubscriptions,
  };
}

/** Every role's settings, lowest role first. */
export async function allRoleSettings(db: Executor): Promise<RoleSettings[]> {
  const rows = await db.select(columns).from(roleSettings);
  const byRole = new Map(rows.map((r) => [r.role, r]));
  return ROLES.map((role) => byRole.get(role) ?? { role, ...DEFAULT_ROLE_SETTINGS });
}

/** What a change of a role's settings may set. */
export type RoleSettingsChange = Partial<Omit<RoleSettings, "role">>;

/** The roles, lowest first (Rookery's are fixed; Mastodon's positions). */
export const ROLES = ["user", "moderator", "admin", "owner"] as const;

/** Mastodon's bound on a role's collection limit is none; ours keeps the column sane. */
export const MAX_COLLECTION_LIMIT = 1_000;

/** A collection limit as typed (digits, 0 to the maximum), or null when it is not one. */
export function parseCollectionLimit(raw: string): number | null {
  const n = /^\d{1,7}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  return n >= 0 && n <= MAX_COLLECTION_LIMIT ? n : null;
}

/**
 * Why a staff member of `actorRole` may not make `change` to `role`, or
 * null when it may (Mastodon's UserRole checks): no role above one's own
 * (so only the owner edits the owner's role), and only the owner changes
 * whether its own role requires two-factor sign-in, so an admin cannot
 * loosen what binds it.
 */
export function roleChangeRefusal(
  actorRole: string,
  role: string,
  change: RoleSettingsChange,
): string | null {
  const rank = (r: string) => ROLES.indexOf(r as (typeof ROLES)[number]);
  if (rank(role) < 0) return "There is no such role.";
  if (rank(actorRole) < rank(role)) return "You cannot change a role above your own.";
  if (role === actorRole && actorRole !== "owner" && change.requireTwoFactor !== undefined) {
    return "Only the owner can change whether your own role requires two-factor sign-in.";
  }
  return null;
}

/**
 * Changes a role's settings, with its audit row (`actor` null: the command
 * line). Who may change what is the caller's check (roles.tsx, the CLI).
 */
export async function changeRoleSettings(
  db: Executor,
  role: string,
  change: RoleSettingsChange,
  actor: string | null,
): Promise<RoleSettings> {
  return await db.transaction(async (tx) => {
    const values = { ...DEFAULT_ROLE_SETTINGS, ...change };
    await tx.insert(roleSettings).values({ role, ...values })
      .onConflictDoUpdate({ target: roleSettings.role, set: { ...change, updatedAt: new Date() } });
    await recordAdminAction(tx, {
      accountId: actor,
      action: "update",
      targetType: "UserRole",
      targetId: null,
      humanIdentifier: role,
    });
    return await settingsOfRole(tx, role);
  });
}
