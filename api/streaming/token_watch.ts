/**
 * Which of the tokens its connections hold the hub (hub.ts) asks the
 * database about at its next check, to close the streams of revoked ones.
 *
 * Asking about every held token twice a second cost a statement over all of
 * them each time (at 10,000 sockets, a tenth of a core with nothing
 * happening). What can end a token already announces itself: the entity
 * triggers (migrations 0005 and 0008) notify `t<token id>` when a token row
 * changes or goes (a revocation, a browser session's end taking its web
 * token by cascade) and `a<account id>` when a user or account row changes
 * (disabled, suspended). So a check asks only about the held tokens named
 * since the last one, plus those of connections registered since (their
 * token was read before they were counted, and may have been revoked
 * between). Everything is asked about when these notifications may have
 * been missed (before the LISTEN is confirmed, after a reconnection, on
 * `*`, or if listening failed), and every {@link FULL_CHECK_MS} anyway:
 * a web token also ends when its session idles out (30 days), which no
 * row change announces.
 */
import {
  type ChannelListener,
  ENTITY_CHANNEL,
  type Unsubscribe,
} from "../../db/channel_listener.ts";

/** How often every held token is asked about, whatever was heard. */
export const FULL_CHECK_MS = 60_000;

/** A held token and its account (null for an anonymous connection's none). */
export interface HeldToken {
  tokenId: string | null;
  accountId: string | null;
}

export class TokenWatch {
  /** Token ids and account ids named since the last check. */
  #tokens = new Set<string>();
  #accounts = new Set<string>();
  /** Whether the next check asks about everything (notifications may have been missed). */
  #all = true;
  #listening = false;
  #lastFull = -Infinity;
  #unlisten: Unsubscribe | null = null;

  /** Hears the entity channel; if it cannot, every check asks about every token. */
  async start(listener: ChannelListener): Promise<void> {
    try {
      this.#unlisten = await listener.listen(
        ENTITY_CHANNEL,
        (payload) => this.#heard(payload),
        () => this.#all = true,
      );
      this.#listening = true;
    } catch {
      this.#listening = false;
    }
  }

  #heard(payload: string): void {
    if (payload === "*") this.#all = true;
    else if (payload[0] === "t") this.#tokens.add(payload.slice(1));
    else if (payload[0] === "a") this.#accounts.add(payload.slice(1));
  }

  /** A connection was registered: its token is asked about at the next check. */
  opened(tokenId: string | null): void {
    if (tokenId) this.#tokens.add(tokenId);
  }

  /** A check failed: the next one asks about everything again. */
  failed(): void {
    this.#all = true;
  }

  /**
   * The tokens among `held` to ask about now (empty: no statement needed),
   * forgetting what was heard until now.
   */
  due(held: Iterable<HeldToken>, now: number): Set<string> {
    const out = new Set<string>();
    const all = !this.#listening || this.#all || now - this.#lastFull >= FULL_CHECK_MS;
    const tokens = this.#tokens;
    const accounts = this.#accounts;
    if (!all && tokens.size === 0 && accounts.size === 0) return out;
    if (all) {
      this.#all = false;
      this.#lastFull = now;
    }
    this.#tokens = new Set();
    this.#accounts = new Set();
    for (const { tokenId, accountId } of held) {
      if (!tokenId) continue;
      if (all || tokens.has(tokenId) || (accountId != null && accounts.has(accountId))) {
        out.add(tokenId);
      }
    }
    return out;
  }

  stop(): void {
    this.#unlisten?.().catch(() => {});
    this.#unlisten = null;
  }
}
