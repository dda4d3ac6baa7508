/**
 * The backend's raw reply to one execution of a prepared statement on
 * PGlite (Bind, Execute, Sync), read here instead of by PGlite's protocol
 * parser (db/pglite_prepared.ts uses it).
 *
 * PGlite's parser copies every field of every row into a fresh ArrayBuffer
 * before decoding it, and builds a message object per row: for a home
 * timeline page (forty rows of some thirty columns) that was 12–17% of the
 * server's CPU, and much of its garbage. A reply made only of the messages
 * an execution answers when all goes well (BindComplete, DataRow,
 * CommandComplete, NoData, PortalSuspended, EmptyQueryResponse,
 * ReadyForQuery) is read here, each field decoded from a view of the reply.
 * Any other message (an error, a notice, a notification, a parameter
 * status) sends the whole reply to PGlite's own parser, so those are read
 * exactly as before; notifications are then handed to the listeners (see
 * {@link mirrorListeners}), since PGlite only delivers those its own
 * parser read.
 */
import { messages, type PGlite, protocol } from "@electric-sql/pglite";

/** A reply read on the fast path: the rows' fields as text, and CommandComplete's text. */
export interface RawReply {
  rows: (string | null)[][];
  /** "SELECT 40", "INSERT 0 1"…; absent when the reply had none. */
  command?: string;
}

/** Message types of a reply that went well: BindComplete, NoData, PortalSuspended, EmptyQuery, ReadyForQuery. */
const PLAIN = new Set(["2", "n", "s", "I", "Z"].map((c) => c.charCodeAt(0)));
const DATA_ROW = "D".charCodeAt(0);
const COMMAND_COMPLETE = "C".charCodeAt(0);

const utf8 = new TextDecoder();

/** The reply's rows and command, or null when it holds anything else (read it with PGlite's parser). */
export function readReply(bytes: Uint8Array): RawReply | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rows: (string | null)[][] = [];
  let command: string | undefined;
  let at = 0;
  while (at < bytes.length) {
    if (at + 5 > bytes.length) return null;
    const type = bytes[at];
    const end = at + 1 + view.getInt32(at + 1);
    if (end > bytes.length) return null;
    if (type === DATA_ROW) {
      const count = view.getInt16(at + 5);
      const fields: (string | null)[] = new Array(count);
      let p = at + 7;
      for (let i = 0; i < count; i++) {
        const length = view.getInt32(p);
        p += 4;
        if (length < 0) fields[i] = null;
        else {
          fields[i] = utf8.decode(bytes.subarray(p, p + length));
          p += length;
        }
      }
      rows.push(fields);
    } else if (type === COMMAND_COMPLETE) {
      // A C string: the text without its terminating zero byte.
      command = utf8.decode(bytes.subarray(at + 5, end - 1));
    } else if (!PLAIN.has(type)) return null;
    at = end;
  }
  return { rows, command };
}

/** The reply's messages as PGlite's parser reads them (the slow path). */
export function parseReply(bytes: Uint8Array): messages.BackendMessage[] {
  const out: messages.BackendMessage[] = [];
  new protocol.Parser().parse(bytes, (message) => out.push(message));
  return out;
}

/** PGlite's name for a channel: a quoted identifier as written, any other lower-cased. */
function channelName(channel: string): string {
  return /^".*"$/.test(channel) ? channel.slice(1, -1).replace(/""/g, '"') : channel.toLowerCase();
}

type Listener = (payload: string) => void;

/**
 * Keeps a copy of `pglite`'s per-channel listeners (its `listen` and
 * `unlisten` are wrapped), and returns the function that delivers a
 * notification to them as PGlite does (each in a microtask). Used for the
 * notifications in replies PGlite's parser never saw; PGlite's global
 * `onNotification` callbacks do not get those (nothing here uses them).
 */
export function mirrorListeners(
  pglite: PGlite,
): (notification: messages.NotificationResponseMessage) => void {
  const channels = new Map<string, Set<Listener>>();
  const forget = (name: string, callback?: Listener) => {
    const set = channels.get(name);
    if (callback) set?.delete(callback);
    if (!callback || set?.size === 0) channels.delete(name);
  };
  const listen = pglite.listen.bind(pglite);
  const unlisten = pglite.unlisten.bind(pglite);
  pglite.listen = async (channel, callback, tx) => {
    const name = channelName(channel);
    if (!channels.has(name)) channels.set(name, new Set());
    channels.get(name)!.add(callback);
    try {
      const stop = await listen(channel, callback, tx);
      return async (tx2) => {
        forget(name, callback);
        await stop(tx2);
      };
    } catch (error) {
      forget(name, callback);
      throw error;
    }
  };
  pglite.unlisten = async (channel, callback, tx) => {
    forget(channelName(channel), callback);
    await unlisten(channel, callback, tx);
  };
  return ({ channel, payload }) => {
    for (const callback of channels.get(channel) ?? []) queueMicrotask(() => callback(payload));
  };
}
