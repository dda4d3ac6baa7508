/**
 * "This process just wrote": a signal from whoever writes (API requests,
 * queued jobs) to whoever caches what was written (the entity cache,
 * api/entities/entity_cache.ts), so that a read right after a write waits
 * for that write's invalidation. It lives here, below both, so that
 * federation/ and actors/ can signal without importing the API layer; the
 * process core (process/core.ts) holds the one instance and connects it.
 */
export class WriteMarks {
  #listener: (() => void) | null = null;

  /** Registers what a write by this process should do (one listener). */
  onWrite(listener: () => void): void {
    this.#listener = listener;
  }

  /** Signals a write by this process. */
  mark(): void {
    this.#listener?.();
  }
}
