/**
 * Deletes and Undos that reached the inbox before what they remove
 * (Mastodon's `delete_upon_arrival`): a Delete of a status we never stored,
 * an Undo of a Like, Announce, Follow or Block we never saw. The Create or
 * activity that arrives after it is dropped while the row lives
 * (federation/inbox/early_deletes.ts); rows expire after a day.
 */
import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

export const earlyDeletes = pgTable("early_deletes", {
  /** The removed object's (or activity's) id, on the remover's own server. */
  uri: text("uri").notNull(),
  /** The remote account whose Delete or Undo it was. */
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  expiresAt: ts("expires_at").notNull(),
}, (t) => [
  primaryKey({ name: "early_deletes_pkey", columns: [t.uri, t.accountId] }),
  // An account's newest are kept (federation/inbox/early_deletes.ts).
  index("early_deletes_account_idx").on(t.accountId, t.expiresAt),
  index("early_deletes_expires_idx").on(t.expiresAt),
]);
