/**
 * Key pairs of local actors: an RSA one (HTTP signatures, LD signatures) and
 * an Ed25519 one (object integrity proofs), made once per actor and kept in
 * the `key_pairs` table so peers that cached our keys keep verifying us after
 * a restart.
 */
import { exportJwk, generateCryptoKeyPair, importJwk } from "@fedify/fedify";
import { eq } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import { keyPairs } from "../../db/schema/mod.ts";

/** The algorithms every local actor has, in the order Fedify receives them (RSA first: main-key). */
export const KEY_ALGORITHMS = ["RSASSA-PKCS1-v1_5", "Ed25519"] as const;

/** The key_pairs owner of the instance actor (other owners are account ids). */
export const INSTANCE_KEY_OWNER = "instance";

/** Beyond this many owners the oldest cached entries are dropped; a re-read is cheap. */
const CACHE_LIMIT = 10_000;

/**
 * The process's copy of the key pairs it used (process/core.ts holds one;
 * tests run several instances in one process, each with its own key_pairs
 * table and possibly the same owner ids).
 */
export class KeyPairCache {
  readonly #database: Database;
  readonly #pairs = new Map<string, Promise<CryptoKeyPair[]>>();

  constructor(database: Database) {
    this.#database = database;
  }

  /** The owner's pairs, loaded or made on first use. */
  get(owner: string): Promise<CryptoKeyPair[]> {
    const cached = this.#pairs.get(owner);
    if (cached) return cached;
    const loading = loadOrCreate(this.#database, owner);
    this.#pairs.set(owner, loading);
    if (this.#pairs.size > CACHE_LIMIT) this.#pairs.delete(this.#pairs.keys().next().value!);
    // A failed load (database hiccup) must not be remembered.
    loading.catch(() => this.#pairs.delete(owner));
    return loading;
  }
}

/**
 * Returns the actor's key pairs, RSA first then Ed25519, creating and storing
 * them on first use. Concurrent first uses (in this or another process)
 * agree on one stored pair per algorithm.
 */
export function getKeyPairs(
  app: { readonly core: { readonly keyPairs: KeyPairCache } },
  owner: string,
): Promise<CryptoKeyPair[]> {
  return app.core.keyPairs.get(owner);
}

/**
 * RSA keys are 2048 bits, as Mastodon makes them, not Fedify's default of
 * 4096: making a 4096-bit key takes 2 to 20 seconds of CPU on a small
 * machine (an actor's first WebFinger answer waited on it), 2048 bits well
 * under one, and every peer verifies either.
 */
function generateKeyPair(algorithm: typeof KEY_ALGORITHMS[number]): Promise<CryptoKeyPair> {
  if (algorithm !== "RSASSA-PKCS1-v1_5") return generateCryptoKeyPair(algorithm);
  return crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
}

async function loadOrCreate(database: Database, owner: string): Promise<CryptoKeyPair[]> {
  const { db } = database;
  const read = () => db.select().from(keyPairs).where(eq(keyPairs.owner, owner));
  let rows = await read();
  const missing = KEY_ALGORITHMS.filter((alg) => !rows.some((row) => row.algorithm === alg));
  if (missing.length > 0) {
    const values = await Promise.all(missing.map(async (algorithm) => {
      const pair = await generateKeyPair(algorithm);
      return {
        owner,
        algorithm,
        privateKey: await exportJwk(pair.privateKey),
        publicKey: await exportJwk(pair.publicKey),
      };
    }));
    // Another process may have won the race: keep its keys, drop ours.
    await db.insert(keyPairs).values(values).onConflictDoNothing();
    rows = await read();
  }
  return await Promise.all(KEY_ALGORITHMS.map(async (algorithm) => {
    const row = rows.find((r) => r.algorithm === algorithm);
    if (!row) throw new Error(`Key pair ${algorithm} of ${owner} vanished while being created`);
    return {
      privateKey: await importJwk(row.privateKey, "private"),
      publicKey: await importJwk(row.publicKey, "public"),
    };
  }));
}
