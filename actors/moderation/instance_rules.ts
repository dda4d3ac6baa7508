/**
 * Instance rules: the short list shown at sign-up and by /api/v1/instance.
 * The admin command line manages them now; the admin REST API will call the
 * same functions.
 */
import { asc, eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { instanceRules } from "../../db/schema/mod.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";

/** Mastodon's limits: a rule is one line people can read at a glance; the hint explains it. */
export const RULE_TEXT_MAX = 300;
export const RULE_HINT_MAX = 2000;

export type InstanceRule = typeof instanceRules.$inferSelect;

/** The rules in display order. */
export async function listRules(db: Executor): Promise<InstanceRule[]> {
  return await db.select().from(instanceRules)
    .orderBy(asc(instanceRules.position), asc(instanceRules.id));
}

/** Adds a rule at the end of the list; throws ValidationError on blank or oversized text. */
export async function addRule(
  db: Executor,
  input: { text: string; hint?: string },
): Promise<InstanceRule> {
  const text = (input.text ?? "").trim();
  const hint = (input.hint ?? "").trim();
  const problems = new Problems();
  if (text === "") problems.add("text", "ERR_BLANK", "can't be blank");
  else if (text.length > RULE_TEXT_MAX) {
    problems.add("text", "ERR_TOO_LONG", `is too long (maximum is ${RULE_TEXT_MAX} characters)`);
  }
  if (hint.length > RULE_HINT_MAX) {
    problems.add("hint", "ERR_TOO_LONG", `is too long (maximum is ${RULE_HINT_MAX} characters)`);
  }
  problems.throwIfAny();
  return await db.transaction(async (tx) => {
    const [{ next }] = await tx.select({
      next: sql<number>`coalesce(max(${instanceRules.position}), -1) + 1`,
    }).from(instanceRules);
    const [rule] = await tx.insert(instanceRules)
      .values({ id: newId(), text, hint, position: Number(next) })
      .returning();
    return rule;
  });
}

/** Removes a rule by id; throws NotFoundError when there is none. */
export async function removeRule(db: Executor, id: string): Promise<InstanceRule> {
  // Ids are bigint snowflakes: anything else cannot match, and would make PostgreSQL fail.
  if (!/^\d{1,19}$/.test(id) || BigInt(id) >= 2n ** 63n) {
    throw new NotFoundError("No rule with that id");
  }
  const [rule] = await db.delete(instanceRules).where(eq(instanceRules.id, id)).returning();
  if (!rule) throw new NotFoundError(`No rule with id ${id}`);
  return rule;
}
