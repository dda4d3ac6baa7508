/**
 * The server's VAPID key (RFC 8292): one P-256 key pair that signs every
 * Web Push request and that apps receive as `vapid_key` / `server_key`.
 *
 * It is made once and kept in the database (key_pairs, owner `vapid`), so
 * every process of the server signs with the same key: push services refuse
 * a subscription's messages signed by any other key than the one the
 * browser subscribed with. Concurrent first uses, in this process or
 * another, agree on the stored pair (insert or keep, then read back).
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import { keyPairs } from "../../db/schema/mod.ts";
import { decodeBase64Any, toBase64Url } from "../formatting/encoding.ts";

const OWNER = "vapid";
const ALGORITHM = "ECDSA-P256";

/** The key as web-push and the API want it. */
export interface VapidKeys {
  /** Uncompressed public point (65 bytes), base64url without padding. */
  publicKey: string;
  /** The private scalar (32 bytes), base64url without padding. */
  privateKey: string;
  /** The public key as Mastodon shows it (`vapid_key`, `server_key`): base64url with padding. */
  serverKey: string;
}

/** The process's copy of the key (process/core.ts holds one). */
export class VapidKeyCache {
  readonly #database: Database;
  #keys: Promise<VapidKeys> | null = null;

  constructor(database: Database) {
    this.#database = database;
  }

  /** The key, loaded or made on first use. */
  get(): Promise<VapidKeys> {
    if (this.#keys) return this.#keys;
    const keys = loadOrCreate(this.#database);
    this.#keys = keys;
    // A failed load (database hiccup) must not be remembered.
    keys.catch(() => {
      if (this.#keys === keys) this.#keys = null;
    });
    return keys;
  }
}

/** The server's VAPID key, made and stored on first use. */
export function vapidKeys(
  app: { readonly core: { readonly vapidKeys: VapidKeyCache } },
): Promise<VapidKeys> {
  return app.core.vapidKeys.get();
}

async function loadOrCreate(database: Database): Promise<VapidKeys> {
  const { db } = database;
  const read = () =>
    db.select().from(keyPairs)
      .where(and(eq(keyPairs.owner, OWNER), eq(keyPairs.algorithm, ALGORITHM))).limit(1);
  let [row] = await read();
  if (!row) {
    const pair = await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-256" },
      true,
      ["sign", "verify"],
    ) as CryptoKeyPair;
    await db.insert(keyPairs).values({
      owner: OWNER,
      algorithm: ALGORITHM,
      privateKey: await crypto.subtle.exportKey("jwk", pair.privateKey),
      publicKey: await crypto.subtle.exportKey("jwk", pair.publicKey),
    }).onConflictDoNothing();
    // Another process may have won the race: everyone uses the stored pair.
    [row] = await read();
    if (!row) throw new Error("The VAPID key vanished while being created");
  }
  const { x, y, d } = row.privateKey;
  if (!x || !y || !d) throw new Error("The stored VAPID key is not an EC private key");
  const point = new Uint8Array(65);
  point[0] = 4;
  point.set(fromBase64Url(x), 1);
  point.set(fromBase64Url(y), 33);
  const publicKey = toBase64Url(point);
  return { publicKey, privateKey: d, serverKey: publicKey + "=" };
}

function fromBase64Url(text: string): Uint8Array {
  const bytes = decodeBase64Any(text);
  if (!bytes) throw new Error("Not base64url");
  return bytes;
}
