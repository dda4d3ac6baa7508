/**
 * NOTIFYs that wake idle queue workers, coalesced: a post to a thousand
 * servers queues a thousand deliveries at once, and each asked for its own
 * NOTIFY (a statement, and a wake-up in every worker). Now one NOTIFY per
 * payload is in flight at a time; the requests made meanwhile share the
 * next one, which starts after it. Each request resolves once a NOTIFY that
 * started after it was made has been sent, so whatever the caller committed
 * before asking is visible to the workers it wakes.
 */
import { getLogger } from "@logtape/logtape";

const logger = getLogger(["rookery", "queue"]);

export class CoalescedNotify {
  readonly #send: (payload: string) => Promise<void>;
  /** Per payload: the NOTIFY not started yet, which the requests made since share. */
  readonly #next = new Map<string, PromiseWithResolvers<void>>();
  readonly #inFlight = new Set<string>();

  constructor(send: (payload: string) => Promise<void>) {
    this.#send = send;
  }

  /** Resolves once a NOTIFY with `payload` started after this call has been sent (or failed, logged). */
  notify(payload: string): Promise<void> {
    let next = this.#next.get(payload);
    if (!next) {
      next = Promise.withResolvers<void>();
      this.#next.set(payload, next);
      if (!this.#inFlight.has(payload)) this.#start(payload);
    }
    return next.promise;
  }

  #start(payload: string): void {
    const batch = this.#next.get(payload);
    if (!batch) return;
    this.#next.delete(payload);
    this.#inFlight.add(payload);
    this.#send(payload)
      .catch((error) => logger.warn("Could not notify other workers: {error}", { error }))
      .finally(() => {
        this.#inFlight.delete(payload);
        batch.resolve();
        this.#start(payload);
      });
  }
}
