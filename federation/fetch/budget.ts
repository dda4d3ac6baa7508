/**
 * What one inbound activity (or one background job, or one API request) may
 * fetch from other servers: a number of documents and a deadline.
 *
 * An activity that names a status we do not have makes us fetch it, its
 * author, its parent and quoted post, and theirs, up to MAX_DEPTH levels
 * (federation/remote/statuses.ts): dozens of signed GETs, all while the inbox
 * job holds a worker. A {@link FetchBudget} is made for each activity and
 * handed to every fetch it causes. Once it is spent (the count, or the
 * deadline, which also aborts a fetch in flight) further fetches are refused
 * without a request; what could not be fetched is stored without the link
 * and fetched later by a job (federation/remote/status_links.ts), or when a user
 * opens the thread.
 *
 * A refusal is remembered ({@link FetchBudget.refusals}), so a caller can
 * tell "not there" (nothing to retry) from "not fetched" (retry later).
 */
import type { DocumentLoader } from "@fedify/vocab";
import type { AppContext } from "../../context.ts";

/** Raised by a budgeted document loader instead of fetching. */
export class FetchBudgetSpent extends Error {
  constructor(url: string) {
    super(`Fetch budget spent; not fetched: ${url}`);
    this.name = "FetchBudgetSpent";
  }
}

/** A count of fetches and a deadline, shared by everything one activity fetches. */
export class FetchBudget {
  #left: number;
  readonly #deadline: number;
  readonly #signal: AbortSignal;
  #refusals = 0;
  #spent = 0;

  /** `count` fetches within `ms` milliseconds from now. */
  constructor(count: number, ms: number) {
    this.#left = count;
    this.#deadline = Date.now() + ms;
    this.#signal = AbortSignal.timeout(Math.max(ms, 1));
  }

  /** The budget the configuration gives each inbound activity (FETCH_BUDGET, FETCH_BUDGET_SECONDS). */
  static of(app: AppContext): FetchBudget {
    return new FetchBudget(app.config.fetchBudget.count, app.config.fetchBudget.ms);
  }

  /** Fetches refused so far (over the count or past the deadline). */
  get refusals(): number {
    return this.#refusals;
  }

  /** Fetches made so far. */
  get spent(): number {
    return this.#spent;
  }

  /** Aborted at the deadline: fetches in flight then are given up. */
  get signal(): AbortSignal {
    return this.#signal;
  }

  /**
   * Takes one fetch from the budget: true when it may be made, false (and
   * counted as a refusal) when the count is spent or the deadline passed.
   */
  take(): boolean {
    if (this.#left <= 0 || Date.now() >= this.#deadline) {
      this.#refusals++;
      return false;
    }
    this.#left--;
    this.#spent++;
    return true;
  }

  /**
   * `loader` with every load taken from this budget and aborted at its
   * deadline; a load over budget throws {@link FetchBudgetSpent} without a
   * request. A load the deadline aborts counts as a refusal.
   */
  wrap(loader: DocumentLoader): DocumentLoader {
    return async (url, options) => {
      if (!this.take()) throw new FetchBudgetSpent(url);
      const signal = options?.signal
        ? AbortSignal.any([this.#signal, options.signal])
        : this.#signal;
      try {
        return await loader(url, { ...options, signal });
      } catch (error) {
        if (this.#signal.aborted) this.#refusals++;
        throw error;
      }
    };
  }

  /**
   * Runs `fetch` and says whether what it could not get was refused by the
   * budget (as opposed to missing, forbidden or broken on the other side).
   */
  async watch<T>(fetch: () => Promise<T | null>): Promise<{ value: T | null; refused: boolean }> {
    const before = this.#refusals;
    const value = await fetch();
    return { value, refused: value == null && this.#refusals > before };
  }
}
