/**
 * The keys a remote actor lists, as stored on its account: every entry of
 * its `publicKey` and `assertionMethod` that names the actor as its owner
 * (`accounts.public_keys`), and the first RSA key of `publicKey` as PEM
 * (`public_key_pem`/`public_key_id`, as before several keys were kept).
 *
 * Verification does not read these columns: it fetches the key a signature
 * names and checks that its owner lists it (federation/fetch/document_loader.ts),
 * so any listed key verifies. They record what the actor published, for
 * staff and for the day a key is needed without a fetch.
 */
import type { Actor, CryptographicKey, DocumentLoader, Multikey } from "@fedify/vocab";
import type { RemoteKey } from "../../db/schema/core.ts";

/** Keys read from one actor document at most (each property). */
export const MAX_ACTOR_KEYS = 10;

/** The key columns of an accounts row, from the actor's document. */
export interface ActorKeys {
  publicKeys: RemoteKey[];
  publicKeyPem: string | null;
  publicKeyId: string | null;
}

/**
 * The actor's keys that name it as their owner (or controller). Keys given
 * by reference are fetched through `documentLoader` (the caller's budget
 * applies); one that cannot be read is left out.
 */
export async function actorKeys(actor: Actor, documentLoader?: DocumentLoader): Promise<ActorKeys> {
  const options = { documentLoader, suppressError: true };
  const owner = actor.id!.href;
  const keys: RemoteKey[] = [];
  let rsa: CryptographicKey | null = null;
  for (const key of await bounded(actor.getPublicKeys(options))) {
    if (!key.id || (key.ownerId != null && key.ownerId.href !== owner)) continue;
    const type = keyType(key);
    keys.push({ id: key.id.href, type, in: "publicKey" });
    if (type === "rsa") rsa ??= key;
  }
  for (const key of await bounded(actor.getAssertionMethods(options))) {
    if (!key.id || (key.controllerId != null && key.controllerId.href !== owner)) continue;
    keys.push({ id: key.id.href, type: keyType(key), in: "assertionMethod" });
  }
  return {
    publicKeys: keys,
    publicKeyPem: rsa?.publicKey ? await spkiPem(rsa.publicKey) : null,
    publicKeyId: rsa?.id?.href ?? null,
  };
}

/**
 * The first {@link MAX_ACTOR_KEYS} keys; those read before a malformed one
 * when the list cannot be read to its end (a bad key must not cost the
 * actor its account).
 */
async function bounded<T>(keys: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  try {
    for await (const key of keys) {
      out.push(key);
      if (out.length >= MAX_ACTOR_KEYS) break;
    }
  } catch {
    // Keep what was read.
  }
  return out;
}

function keyType(key: CryptographicKey | Multikey): RemoteKey["type"] {
  const name = key.publicKey?.algorithm.name;
  return name === "RSASSA-PKCS1-v1_5" ? "rsa" : name === "Ed25519" ? "ed25519" : "other";
}

async function spkiPem(key: CryptoKey): Promise<string> {
  const der = new Uint8Array(await crypto.subtle.exportKey("spki", key));
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join("\n")}\n-----END PUBLIC KEY-----\n`;
}
