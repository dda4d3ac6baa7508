/**
 * Set-up of the relationship tests beyond tests/fixtures (users, API calls,
 * relationships, waits): reading account rows.
 */
import { eq } from "drizzle-orm";
import { accounts } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";

/** A stored account row by id. */
export async function accountRow(instance: TestInstance, id: string) {
  const { db } = instance.rookery.ctx.database;
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row;
}
