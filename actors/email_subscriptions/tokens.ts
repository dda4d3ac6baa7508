/**
 * The links of subscription mails carry a signed token, so that nothing
 * secret is stored per subscription: base64url of
 * `id "." purpose "." expiry "." HMAC-SHA256(id "." purpose "." expiry)`.
 * `confirm` tokens expire in 48 hours; `unsubscribe` tokens never do (they
 * die with the row they name). The key is a random 32-byte HMAC key kept in
 * `key_pairs` (owner `email_links`), made on first use, so every process
 * signs and checks with the same one.
 */
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { keyPairs } from "../../db/schema/mod.ts";
import { decodeBase64Any, toBase64Url } from "../formatting/encoding.ts";

const OWNER = "email_links";
const ALGORITHM = "HMAC-SHA256";
const HMAC = { name: "HMAC", hash: "SHA-256" } as const;

/** What a link is for. */
export type LinkPurpose = "confirm" | "unsubscribe";

/** How long a confirmation link works. */
export const CONFIRM_VALID_MS = 48 * 60 * 60 * 1000;

/** Longest token looked at (real ones are about 120 characters). */
const MAX_TOKEN_LENGTH = 300;

async function linkKey(db: Executor): Promise<CryptoKey> {
  const read = () =>
    db.select({ key: keyPairs.privateKey }).from(keyPairs)
      .where(and(eq(keyPairs.owner, OWNER), eq(keyPairs.algorithm, ALGORITHM))).limit(1);
  let [row] = await read();
  if (!row) {
    const key = await crypto.subtle.generateKey({ ...HMAC, length: 256 }, true, ["sign", "verify"]);
    const jwk = await crypto.subtle.exportKey("jwk", key);
    // Concurrent first uses agree on whichever row was stored first.
    await db.insert(keyPairs).values({
      owner: OWNER,
      algorithm: ALGORITHM,
      privateKey: jwk,
      publicKey: { kty: "oct" },
    }).onConflictDoNothing();
    [row] = await read();
    if (!row) throw new Error("The e-mail link key vanished while being created");
  }
  return await crypto.subtle.importKey("jwk", row.key, HMAC, false, ["sign", "verify"]);
}

const encoder = new TextEncoder();

/** A token for the subscription `id`. */
export async function signLinkToken(
  db: Executor,
  id: string,
  purpose: LinkPurpose,
  now = Date.now(),
): Promise<string> {
  const expiry = purpose === "confirm" ? now + CONFIRM_VALID_MS : 0;
  const body = `${id}.${purpose}.${expiry}`;
  const mac = await crypto.subtle.sign("HMAC", await linkKey(db), encoder.encode(body));
  return toBase64Url(encoder.encode(`${body}.${toBase64Url(new Uint8Array(mac))}`));
}

/** The subscription id a token names for `purpose`, or null (forged, expired, malformed). */
export async function verifyLinkToken(
  db: Executor,
  token: string,
  purpose: LinkPurpose,
  now = Date.now(),
): Promise<string | null> {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const bytes = decodeBase64Any(token);
  if (!bytes) return null;
  const parts = new TextDecoder().decode(bytes).split(".");
  if (parts.length !== 4) return null;
  const [id, kind, expiry, mac] = parts;
  if (!/^[0-9]{1,19}$/.test(id) || kind !== purpose || !/^[0-9]{1,16}$/.test(expiry)) return null;
  const signature = decodeBase64Any(mac);
  if (!signature) return null;
  const valid = await crypto.subtle.verify(
    "HMAC",
    await linkKey(db),
    signature as Uint8Array<ArrayBuffer>,
    encoder.encode(`${id}.${kind}.${expiry}`),
  );
  if (!valid) return null;
  if (purpose === "confirm" && Number(expiry) < now) return null;
  return id;
}
