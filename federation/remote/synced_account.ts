/**
 * The remote account a featured sync (pins, featured collections) reads:
 * none when it is gone, local, deleted or suspended, since nothing of such
 * an account is fetched.
 */
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts } from "../../db/schema/mod.ts";

export async function syncedRemoteAccount(
  app: AppContext,
  accountId: string,
): Promise<typeof accounts.$inferSelect | null> {
  const [account] = await app.database.db.select().from(accounts)
    .where(eq(accounts.id, accountId)).limit(1);
  if (!account || account.domain == null || account.deletedAt || account.suspendedAt) return null;
  return account;
}
