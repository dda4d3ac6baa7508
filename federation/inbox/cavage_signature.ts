/**
 * Draft-cavage HTTP signatures (what Mastodon and most peers send) verified
 * with node:crypto, synchronously, over the body the guard already read.
 *
 * Fedify's verifier (verifyRequestDetailed) makes the same checks with Web
 * Crypto, whose digest and verify are asynchronous ops that Deno runs on a
 * thread pool, and whose verify parses the key's DER again at every call:
 * measured alone, 18–25 µs for a 2 KB body's SHA-256 (2–3 µs with
 * createHash) and about 180 µs for an RSA-2048 verification (about 120 µs
 * with a KeyObject made once per key). It also clones the request to read
 * the body a second time. RFC 9421 signatures stay Fedify's (guard.ts).
 *
 * The checks are Fedify's, in its order, so a request is refused here
 * exactly when Fedify would refuse it: a Date and a Digest header; every
 * digest of a supported algorithm matches the body, and one at least is
 * supported; the Date, `created` and `expires` within the window; a key id,
 * a header list covering `(request-target)`, `date` and `digest`, and a
 * signature; the key fetched through the same loader and key cache (a
 * failure to verify with a cached key is retried with the key fetched
 * afresh, through the loader's document cache; the guard then goes past
 * that cache once: key_refresh.ts). What Fedify would have thrown on (an unparsable Date, a key
 * that is not RSA or has no key material) is refused as an invalid
 * signature instead.
 */
import { createHash, KeyObject, timingSafeEqual, verify } from "node:crypto";
import {
  fetchKeyDetailed,
  type VerifyRequestDetailedResult,
  type VerifyRequestOptions,
} from "@fedify/fedify";
import { CryptographicKey } from "@fedify/vocab";
import { refetching } from "./key_refresh.ts";

/** Digest algorithms of a `Digest` header, as node:crypto names them (Fedify's list). */
const DIGEST_ALGORITHMS: Record<string, string> = {
  "sha": "sha1",
  "sha-256": "sha256",
  "sha-512": "sha512",
};

type Options = Pick<VerifyRequestOptions, "documentLoader" | "contextLoader" | "keyCache"> & {
  /** How far from now a Date or `created` may be, both ways, in milliseconds. */
  windowMs: number;
};

/**
 * A verifier of draft-cavage signatures over `body` (the request's whole
 * body, already read); its KeyObjects are kept per key for its lifetime.
 */
export function cavageVerifier() {
  const keyObjects = new WeakMap<CryptoKey, KeyObject>();
  const keyObject = (key: CryptoKey) => {
    let object = keyObjects.get(key);
    if (!object) keyObjects.set(key, object = KeyObject.from(key));
    return object;
  };
  const run = async (
    request: Request,
    body: Uint8Array,
    options: Options,
  ): Promise<VerifyRequestDetailedResult> => {
    const fields = signatureFields(request.headers.get("signature") ?? "");
    const keyId = parseUrl(fields.keyId);
    const refused = invalid(keyId);
    const headers = request.headers;
    const date = Date.parse(headers.get("date") ?? "");
    if (Number.isNaN(date) || !digestMatches(headers.get("digest"), body)) return refused;
    const now = Date.now();
    if (Math.abs(date - now) > options.windowMs) return refused;
    if (keyId == null || fields.headers == null || fields.signature == null) return refused;
    if (!timesValid(fields, now, options.windowMs)) return refused;
    const fetched = await fetchKeyDetailed(keyId, CryptographicKey, options);
    if (fetched.fetchError != null) {
      return {
        verified: false,
        reason: { type: "keyFetchError", keyId, result: fetched.fetchError },
      };
    }
    const key = fetched.key;
    if (key == null) return refused;
    const covered = fields.headers.split(/\s+/g);
    if (!["(request-target)", "date", "digest"].every((name) => covered.includes(name))) {
      return refused;
    }
    const message = signedMessage(request, covered, fields);
    if (rsaVerified(key.publicKey, message, fields.signature, keyObject)) {
      return { verified: true, key };
    }
    if (!fetched.cached) return refused;
    // The cached key may be an old one: once more with the key fetched afresh.
    return await run(request, body, { ...options, keyCache: refetching(options.keyCache) });
  };
  return run;
}

function invalid(keyId: URL | null): VerifyRequestDetailedResult {
  return keyId == null
    ? { verified: false, reason: { type: "invalidSignature" } }
    : { verified: false, reason: { type: "invalidSignature", keyId } };
}

/** The `key="value"` (or `key=digits`) pairs of a Signature header, as Fedify reads them. */
function signatureFields(header: string): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = {};
  for (const pair of header.split(",")) {
    const match = /^\s*([A-Za-z]+)=(?:"([^"]*)"|(\d+))\s*$/.exec(pair);
    if (match) fields[match[1]] = match[2] ?? match[3];
  }
  return fields;
}

function parseUrl(value: string | undefined): URL | null {
  if (value == null) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * Whether every digest of a supported algorithm in a `Digest` header is
 * the body's, and one at least is supported.
 */
function digestMatches(header: string | null, body: Uint8Array): boolean {
  if (header == null) return false;
  let matched = false;
  for (const pair of header.split(",")) {
    const [name, value = ""] = pair.includes("=") ? pair.split("=", 2) : [pair, ""];
    const algorithm = DIGEST_ALGORITHMS[name.trim().toLowerCase()];
    if (algorithm == null) continue;
    const claimed = base64Bytes(value);
    if (claimed == null) return false;
    const actual = createHash(algorithm).update(body).digest();
    if (claimed.length !== actual.length || !timingSafeEqual(claimed, actual)) return false;
    matched = true;
  }
  return matched;
}

/** The `expires` not passed and the `created` within the window, where given. */
function timesValid(fields: Record<string, string | undefined>, now: number, windowMs: number) {
  if (fields.expires != null) {
    const expires = Number.parseInt(fields.expires);
    if (!Number.isInteger(expires) || now > expires * 1000) return false;
  }
  if (fields.created != null) {
    const created = Number.parseInt(fields.created);
    if (!Number.isInteger(created) || Math.abs(created * 1000 - now) > windowMs) return false;
  }
  return true;
}

/** The signing string of draft-cavage §2.3 over the covered headers. */
function signedMessage(
  request: Request,
  covered: string[],
  fields: Record<string, string | undefined>,
): string {
  const url = new URL(request.url);
  return covered.map((name) => {
    const value = name === "(request-target)"
      ? `${request.method.toLowerCase()} ${url.pathname}`
      : name === "(created)"
      ? fields.created ?? ""
      : name === "(expires)"
      ? fields.expires ?? ""
      : name === "host"
      ? request.headers.get("host") ?? url.host
      : request.headers.get(name);
    return `${name}: ${value}`;
  }).join("\n");
}

/** An RSASSA-PKCS1-v1_5 verification with the key's hash; false for no key or any other kind. */
function rsaVerified(
  key: CryptoKey | null,
  message: string,
  signature: string,
  keyObject: (key: CryptoKey) => KeyObject,
): boolean {
  if (key == null) return false;
  const algorithm = key.algorithm as RsaHashedKeyAlgorithm;
  if (algorithm.name !== "RSASSA-PKCS1-v1_5" || key.type !== "public") return false;
  const bytes = base64Bytes(signature);
  if (bytes == null) return false;
  const hash = algorithm.hash.name.replace("-", "").toLowerCase();
  return verify(hash, new TextEncoder().encode(message), keyObject(key), bytes);
}

/** Standard base64, strictly (as Fedify decodes it); null when it is not. */
function base64Bytes(text: string): Uint8Array | null {
  try {
    return Uint8Array.fromBase64(text);
  } catch {
    return null;
  }
}
