/**
 * Accounts as Fedify's recipients: the actor, its inbox and its shared
 * inbox (preferred when sending to many), read from the accounts row.
 */
import type { Recipient } from "@fedify/vocab";
import { and, isNotNull, isNull } from "drizzle-orm";
import { accounts } from "../../db/schema/mod.ts";

/** The columns a recipient is made of. */
export type InboxColumns = {
  uri: string;
  inboxUrl: string | null;
  sharedInboxUrl: string | null;
};

/** The accounts columns {@link recipientOf} reads, for a select. */
export const inboxColumns = {
  uri: accounts.uri,
  inboxUrl: accounts.inboxUrl,
  sharedInboxUrl: accounts.sharedInboxUrl,
};

/** An account that can receive deliveries: remote, with an inbox, not deleted. */
export const remoteInbox = and(
  isNotNull(accounts.domain),
  isNotNull(accounts.inboxUrl),
  isNull(accounts.deletedAt),
);

/** An account as Fedify's recipient. */
export function recipientOf(row: InboxColumns): Recipient {
  return {
    id: new URL(row.uri),
    inboxId: row.inboxUrl ? new URL(row.inboxUrl) : null,
    endpoints: row.sharedInboxUrl ? { sharedInbox: new URL(row.sharedInboxUrl) } : null,
  };
}
