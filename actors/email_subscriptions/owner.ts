/**
 * What an account's owner does with its e-mail subscriptions (the settings
 * page): opt in or out, see how many confirmed subscribers there are (never
 * their addresses: they gave them to get mail, not to be known), and
 * remove them all.
 */
import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { emailSubscriptions, users } from "../../db/schema/mod.ts";

/** Turns the owner's opt-in (`users.settings.email_subscriptions_enabled`) on or off. */
export async function setSubscriptionsEnabled(
  db: Executor,
  userId: string,
  enabled: boolean,
): Promise<void> {
  await db.update(users).set({
    settings:
      sql`${users.settings} || jsonb_build_object('email_subscriptions_enabled', ${enabled}::boolean)`,
  }).where(eq(users.id, userId));
}

/** How many confirmed subscribers the account has. */
export async function confirmedSubscriberCount(db: Executor, accountId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(emailSubscriptions).where(and(
    eq(emailSubscriptions.accountId, accountId),
    isNotNull(emailSubscriptions.confirmedAt),
  ));
  return Number(row?.n ?? 0);
}

/** Removes every subscription of the account, confirmed or not; returns how many. */
export async function removeAllSubscribers(db: Executor, accountId: string): Promise<number> {
  const rows = await db.delete(emailSubscriptions)
    .where(eq(emailSubscriptions.accountId, accountId)).returning({ id: emailSubscriptions.id });
  return rows.length;
}
