/**
 * A user's preferences with Mastodon's defaults applied (GET
 * /api/v1/preferences answers them; the web app's composer starts from
 * them): one query of the user's settings and the account's `locked`.
 */
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { type ResolvedSettings, resolveSettings } from "../../model/user_settings.ts";

/** The user's resolved settings, or null for a user that is gone. */
export async function readPreferences(
  ctx: AppContext,
  userId: string,
): Promise<ResolvedSettings | null> {
  const [row] = await ctx.database.db.select({ settings: users.settings, locked: accounts.locked })
    .from(users).innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.id, userId)).limit(1);
  return row ? resolveSettings(row.settings, row) : null;
}
