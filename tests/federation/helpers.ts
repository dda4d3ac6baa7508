/** Shared set-up for the federation tests: local accounts with profile data. */
import { eq } from "drizzle-orm";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { accounts } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";

export const AP_ACCEPT = "application/activity+json";
export const LD_ACCEPT = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

type AccountChanges = Partial<typeof accounts.$inferInsert>;

/** Creates a local account, then applies profile columns the command does not take. */
export async function createAccount(
  instance: TestInstance,
  username: string,
  changes: AccountChanges = {},
  options: { bot?: boolean } = {},
) {
  const { db } = instance.rookery.ctx.database;
  const { account, user } = await createLocalAccount(db, instance.origin, {
    username,
    email: `${username}@example.com`,
    password: "correct horse battery",
    confirmed: true,
    bot: options.bot,
  });
  if (Object.keys(changes).length === 0) return { account, user };
  const [updated] = await db.update(accounts).set(changes).where(eq(accounts.id, account.id))
    .returning();
  return { account: updated, user };
}
