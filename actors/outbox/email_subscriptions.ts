/**
 * Background work of e-mail subscriptions: an account's digest is due at
 * `dueAt` (actors/email_subscriptions/digest.ts). The implementation
 * (federation/outbox/email_subscriptions.ts) queues the `email_digest` job
 * for then.
 */
export interface EmailDigestJobs {
  emailDigestDue(accountId: string, dueAt: string): Promise<void>;
}
