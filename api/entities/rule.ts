/**
 * The Rule entity (Mastodon's REST::RuleSerializer): one instance rule, as
 * /api/v1/instance, /api/v1/instance/rules and Admin::Report show it.
 * Rookery keeps no translations of rules, so `translations` is empty.
 */
import type { instanceRules } from "../../db/schema/mod.ts";
import type { Rule } from "./instance.ts";

export type { Rule } from "./instance.ts";

/** Serializes one rule row. */
export function ruleEntity(
  row: Pick<typeof instanceRules.$inferSelect, "id" | "text" | "hint">,
): Rule {
  return { id: row.id, text: row.text, hint: row.hint, translations: {} };
}
