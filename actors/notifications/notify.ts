/**
 * Records notifications. Every command that should notify someone calls
 * {@link notify} inside its transaction; the rules about who is not notified
 * (blocks, mutes, muted threads, notification policy) live here, once.
 */
import type { Executor } from "../../db/connection.ts";

export type NotificationType =
  | "mention"
  | "status"
  | "reblog"
  | "follow"
  | "follow_request"
  | "favourite"
  | "poll"
  | "update"
  | "quote"
  | "quoted_update"
  | "admin.sign_up"
  | "admin.report";

export interface NewNotification {
  type: NotificationType;
  /** The account notified. */
  accountId: string;
  /** The account that caused it. */
  fromAccountId: string;
  statusId?: string | null;
}

/** Records one notification unless the recipient's rules drop it. */
export async function notify(_tx: Executor, _notification: NewNotification): Promise<void> {
  // Filled in by the notifications work (issue 4).
}
