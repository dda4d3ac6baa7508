/**
 * What each role may do: Mastodon's role permission flags (UserRole::FLAGS,
 * the same bit positions, so the bitmask in CredentialAccount's `role` means
 * what Mastodon's does) and the permissions of our four fixed roles, as
 * Mastodon's default roles (config/roles.yml) define them, each combined with
 * the "everyone" role's as Mastodon's `computed_permissions` does.
 *
 * Every moderation check asks {@link hasPermission}: the admin API, admin
 * notifications and push alerts (`admin.report` needs manage_reports,
 * `admin.sign_up` manage_users: {@link mayReceiveNotification}). SQL that picks staff by role uses
 * {@link rolesWith}, so the table below stays the only definition.
 */

/**
 * The roles, highest first: Mastodon's default roles (Owner, Admin,
 * Moderator) and plain users. Their rank is their place in this list.
 */
export const ROLES = ["owner", "admin", "moderator", "user"] as const;
export type UserRole = typeof ROLES[number];

/** Whether `name` is one of the roles. */
export function isRole(name: string): name is UserRole {
  return (ROLES as readonly string[]).includes(name);
}

/** Mastodon's permission flags, by bit position. */
export const PERMISSION_FLAGS = {
  administrator: 1 << 0,
  view_devops: 1 << 1,
  view_audit_log: 1 << 2,
  view_dashboard: 1 << 3,
  manage_reports: 1 << 4,
  manage_federation: 1 << 5,
  manage_settings: 1 << 6,
  manage_blocks: 1 << 7,
  manage_taxonomies: 1 << 8,
  manage_appeals: 1 << 9,
  manage_users: 1 << 10,
  manage_invites: 1 << 11,
  manage_rules: 1 << 12,
  manage_announcements: 1 << 13,
  manage_custom_emojis: 1 << 14,
  manage_webhooks: 1 << 15,
  invite_users: 1 << 16,
  manage_roles: 1 << 17,
  manage_user_access: 1 << 18,
  delete_user_data: 1 << 19,
  view_feeds: 1 << 20,
  invite_bypass_approval: 1 << 21,
  /** Granted per role by `role_settings.email_subscriptions` (actors/roles/role_settings.ts). */
  manage_email_subscriptions: 1 << 22,
} as const;

/** A permission's name (`manage_reports`…). */
export type Permission = keyof typeof PERMISSION_FLAGS;

/** Every flag at once: what `administrator` grants. */
const ALL = Object.values(PERMISSION_FLAGS).reduce((mask, bit) => mask | bit, 0);

function maskOf(names: readonly Permission[]): number {
  return names.reduce((mask, name) => mask | PERMISSION_FLAGS[name], 0);
}

/** Mastodon's "everyone" role (plain users): inviting people is all it allows. */
const EVERYONE: readonly Permission[] = ["invite_users"];

const MODERATOR: readonly Permission[] = [
  "invite_users",
  "view_dashboard",
  "view_audit_log",
  "view_feeds",
  "manage_users",
  "manage_reports",
  "manage_taxonomies",
];

const ADMIN: readonly Permission[] = [
  ...MODERATOR,
  "manage_user_access",
  "delete_user_data",
  "manage_federation",
  "manage_settings",
  "manage_blocks",
  "manage_appeals",
  "manage_rules",
  "manage_invites",
  "manage_announcements",
  "manage_custom_emojis",
  "manage_webhooks",
  "manage_roles",
];

/**
 * The permission bitmask of each role, everyone's included. The owner holds
 * `administrator`, which Mastodon expands to every flag.
 */
const ROLE_MASKS: Readonly<Record<UserRole, number>> = {
  user: maskOf(EVERYONE),
  moderator: maskOf([...EVERYONE, ...MODERATOR]),
  admin: maskOf([...EVERYONE, ...ADMIN]),
  owner: maskOf(EVERYONE) | PERMISSION_FLAGS.administrator,
};

/** The bitmask a role computes to (unknown roles: the everyone role's). */
function computedMask(role: string): number {
  const mask = (ROLE_MASKS as Record<string, number>)[role] ?? ROLE_MASKS.user;
  return mask & PERMISSION_FLAGS.administrator ? ALL : mask;
}

/** What a role's run-time settings add to its fixed permissions. */
export interface RoleGrants {
  /** `role_settings.email_subscriptions`: the role may offer e-mail subscriptions. */
  emailSubscriptions?: boolean;
}

/** The role's mask with its run-time grants. */
function grantedMask(role: string, grants: RoleGrants): number {
  const mask = computedMask(role);
  return grants.emailSubscriptions ? mask | PERMISSION_FLAGS.manage_email_subscriptions : mask;
}

/**
 * The role's permissions as the decimal bitmask Mastodon's Role entity shows
 * (REST::RoleSerializer sends `computed_permissions`: the owner's
 * `administrator` shows as every flag, so clients testing one bit see it).
 */
export function rolePermissions(role: string, grants: RoleGrants = {}): string {
  return String(grantedMask(role, grants));
}

/**
 * Whether a user of `role` may do what `permission` covers (unknown roles
 * may not); `grants` are the role's run-time settings.
 */
export function hasPermission(
  role: string,
  permission: Permission,
  grants: RoleGrants = {},
): boolean {
  const bit = PERMISSION_FLAGS[permission];
  return bit !== undefined && (grantedMask(role, grants) & bit) === bit;
}

/** The roles that have `permission`, for queries over `users.role`. */
export function rolesWith(permission: Permission): UserRole[] {
  return ROLES.filter((role) => hasPermission(role, permission));
}

/** A role's rank: users 0, then up the list (unknown roles rank as users). */
function rank(role: string): number {
  return isRole(role) ? ROLES.length - 1 - ROLES.indexOf(role) : 0;
}

/**
 * Whether a user of `role` may act on a user of `other` (Mastodon's
 * `UserRole#overrides?`: strictly higher; unknown roles rank as users).
 */
export function outranks(role: string, other: string): boolean {
  return rank(role) > rank(other);
}

/** Whether `name` is one of Mastodon's permission names. */
export function isPermission(name: string): name is Permission {
  return Object.hasOwn(PERMISSION_FLAGS, name);
}

/**
 * The permission each staff notification type needs (Mastodon's
 * NotifyService and push alerts ask the same): who may be sent, or
 * subscribe to, `admin.report` and `admin.sign_up`.
 */
export const ADMIN_NOTIFICATION_PERMISSIONS = {
  "admin.report": "manage_reports",
  "admin.sign_up": "manage_users",
} as const satisfies Record<string, Permission>;

/**
 * Whether a user of `role` may receive notifications (or push alerts) of
 * `type`; true for every type that is not a staff one.
 */
export function mayReceiveNotification(role: string, type: string): boolean {
  const needed = (ADMIN_NOTIFICATION_PERMISSIONS as Record<string, Permission>)[type];
  return needed === undefined || hasPermission(role, needed);
}
