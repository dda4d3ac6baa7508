/**
 * The key that signs media proxy URLs (actors/media/urls.ts): 32 random
 * bytes, made once and kept in the database (key_pairs, owner
 * `media_proxy`, as an `oct` JWK), so every process of the server signs
 * and checks with the same key and URLs handed out survive a restart.
 * Concurrent first starts agree on the stored key (insert or keep, then
 * read back), as the VAPID key does (actors/push/vapid.ts).
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { keyPairs } from "../../db/schema/mod.ts";
import { decodeBase64Any, toBase64Url } from "../formatting/encoding.ts";

const OWNER = "media_proxy";
const ALGORITHM = "HMAC-SHA256";

/** The stored key, made on first use. */
export async function loadMediaProxyKey(db: Db): Promise<Uint8Array> {
  const read = () =>
    db.select().from(keyPairs)
      .where(and(eq(keyPairs.owner, OWNER), eq(keyPairs.algorithm, ALGORITHM))).limit(1);
  let [row] = await read();
  if (!row) {
    const k = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    await db.insert(keyPairs).values({
      owner: OWNER,
      algorithm: ALGORITHM,
      privateKey: { kty: "oct", k },
      publicKey: {},
    }).onConflictDoNothing();
    // Another process may have won the race: everyone uses the stored key.
    [row] = await read();
    if (!row) throw new Error("The media proxy key vanished while being created");
  }
  const key = row.privateKey.k ? decodeBase64Any(row.privateKey.k) : null;
  if (!key || key.length < 32) throw new Error("The stored media proxy key is not 32 bytes");
  return key;
}
