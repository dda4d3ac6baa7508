/**
 * Two-factor sign-in required per role (Mastodon 4.7): a user whose role
 * requires it and who has not set it up may use the web pages only to set
 * it up (or sign out). Computed on each gated request from the role's
 * setting and the user's state, so a role changed after sign-in applies at
 * once; API tokens are not affected (Mastodon enforces it on the web only).
 */
import { eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { roleSettings, users } from "../../db/schema/mod.ts";

/** Where such a user is sent. */
export const TWO_FACTOR_SETUP_PATH = "/settings/otp_authentication";

/** Whether the user's role requires two-factor sign-in. */
export async function roleRequiresTwoFactor(db: Executor, userId: string): Promise<boolean> {
  const [row] = await db.select({ required: roleSettings.requireTwoFactor }).from(users)
    .innerJoin(roleSettings, eq(roleSettings.role, users.role))
    .where(eq(users.id, userId)).limit(1);
  return row?.required ?? false;
}

/** Whether the user must set up two-factor sign-in before anything else. */
export async function twoFactorSetupDue(db: Executor, userId: string): Promise<boolean> {
  const [row] = await db.select({
    required: roleSettings.requireTwoFactor,
    enabled: users.otpRequiredForLogin,
  }).from(users).innerJoin(roleSettings, eq(roleSettings.role, users.role))
    .where(eq(users.id, userId)).limit(1);
  return row != null && row.required && !row.enabled;
}
