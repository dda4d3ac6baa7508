/**
 * Web Push jobs. Recorded with the notifications they announce
 * (actors/push/request.ts); the implementation (federation/outbox/push.ts)
 * queues one job per notification on the durable queue, which
 * jobs/web_push/deliver.ts runs in a worker.
 */

/** Background work about Web Push. */
export interface PushJobs {
  /** Push these notifications to their recipients' subscriptions. */
  pushRequested(notificationIds: string[]): Promise<void>;
}
