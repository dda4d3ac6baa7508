/**
 * Account moves (ActivityPub `Move`), local and remote: one row per origin
 * and target, written when the move is accepted. It is what makes a
 * repeated Move (or the actor Update that announces the same `movedTo`)
 * do nothing new (actors/accounts/moves.ts).
 */
import { pgTable, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

export const accountMoves = pgTable("account_moves", {
  id: id("id").primaryKey(),
  /** The account that moved away (the origin). */
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  /** The account it moved to. */
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("account_moves_pair_idx").on(t.accountId, t.targetAccountId)]);
