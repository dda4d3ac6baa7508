/**
 * What an activity delivered by its own actor may carry besides itself
 * without leaving the inbox's fast path: its Linked Data signature and its
 * FEP-8b32 integrity proofs, of their plain shapes.
 *
 * A Linked Data signature (`RsaSignature2017`) as Mastodon writes one on
 * every public activity, and as Fedify writes it: `type`, `creator`,
 * `created`, `signatureValue` (and Fedify's `@context`), all strings.
 *
 * When the HTTP signature's key belongs to the activity's actor, the HTTP
 * signature authenticates the activity and the Linked Data signature says
 * nothing more: Mastodon verifies it only when someone else delivered the
 * activity (a relay, inbox forwarding), and so do we — or rather, we never
 * trust it then either (inbox/guard.ts). Such an activity needs no JSON-LD
 * work in the request (fast_path.ts) and reads as it would without the
 * signature (plain_create.ts); the signature is kept, never read, so a
 * forwarded copy carries it byte for byte (`ctx.forwardActivity` sends the
 * activity as received).
 *
 * Only this shape is let through: anything else under `signature` (not an
 * object, another suite, extra keys, oversized values) takes Fedify's path
 * as before.
 */

/** Characters a signature's string values may have at most (an RSA-4096 value is 684). */
const MAX_VALUE_LENGTH = 2048;
const KEYS = new Set(["@context", "type", "creator", "created", "signatureValue"]);
/** The context Fedify's signJsonLd gives the signature's options. */
const IDENTITY_CONTEXT = "https://w3id.org/identity/v1";

/** Whether `value` is an `RsaSignature2017` of the plain shape above. */
export function isPlainLdSignature(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const signature = value as Record<string, unknown>;
  for (const [key, item] of Object.entries(signature)) {
    if (!KEYS.has(key) || typeof item !== "string" || item.length > MAX_VALUE_LENGTH) return false;
  }
  if (signature["@context"] !== undefined && signature["@context"] !== IDENTITY_CONTEXT) {
    return false;
  }
  return signature.type === "RsaSignature2017" && typeof signature.creator === "string" &&
    typeof signature.created === "string" && typeof signature.signatureValue === "string";
}

/** Proofs one activity may carry (the guard's limit for relayed ones: proofs.ts). */
const MAX_PROOFS = 2;
/** Keys of a FEP-8b32 proof as Fedify and Mastodon write it. */
const PROOF_KEYS = new Set([
  "@context",
  "type",
  "cryptosuite",
  "verificationMethod",
  "proofPurpose",
  "proofValue",
  "created",
  "expires",
]);

/**
 * Whether `value` (an activity's `proof`) is one or two `DataIntegrityProof`s
 * of string values (a `@context` aside), as FEP-8b32 writes them. Like the
 * Linked Data signature, they are not read on the fast path: the HTTP
 * signature of their own actor authenticated the activity, and Fedify's
 * request, which verified them, decided nothing with the outcome.
 */
export function isPlainProof(value: unknown): boolean {
  const proofs = Array.isArray(value) ? value : [value];
  if (proofs.length === 0 || proofs.length > MAX_PROOFS) return false;
  return proofs.every((proof) => {
    if (!proof || typeof proof !== "object" || Array.isArray(proof)) return false;
    for (const [key, item] of Object.entries(proof)) {
      if (!PROOF_KEYS.has(key)) return false;
      if (key !== "@context" && (typeof item !== "string" || item.length > MAX_VALUE_LENGTH)) {
        return false;
      }
    }
    return (proof as Record<string, unknown>).type === "DataIntegrityProof";
  });
}
