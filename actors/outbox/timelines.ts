/**
 * Not a delivery to another server but to this one's home feeds: a large
 * fan-out publishes its `update` before writing the home rows, and records
 * this intent in the posting transaction so that the relay writes them
 * right after the commit, or after a crash (actors/timelines/pending_home.ts).
 * The outbox's relay is the mechanism that already runs a recorded intent
 * exactly once it committed, at once in the process that wrote it.
 */
export interface TimelineDeliveries {
  /** Writes the home rows of `statusId`'s pending fan-out and deletes the pending row. */
  finishHomeFanOut(statusId: string): Promise<void>;
}
