/**
 * Set-up of the relationship tests beyond tests/fixtures (users, API calls,
 * relationships, waits): reading account rows.
 */
import { eq } from "drizzle-orm";
import { accounts } from "../../db/schema.ts";
import type { TestInstance } from "../harness.ts";

// Still imported from here by folders not yet moved to tests/fixtures.
export { call, callJson, relationship } from "../fixtures/api.ts";
export { createUser, type TestUser } from "../fixtures/users.ts";
export { eventually } from "../fixtures/wait.ts";

/** A stored account row by id. */
export async function accountRow(instance: TestInstance, id: string) {
  const { db } = instance.rookery.ctx.database;
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row;
}
