/**
 * FEP-8b32 object integrity proofs on relayed activities: whether an
 * activity signed (HTTP) by someone else than its actor carries its actor's
 * own proof, so that it can be taken as the actor's without fetching
 * anything from the actor's server (a reply forwarded by the thread's
 * author reaches that author's followers intact, as Mastodon 4.7 reads it).
 *
 * A proof counts when it is an `eddsa-jcs-2022` DataIntegrityProof for the
 * `assertionMethod` purpose, made with a key on the actor's own server that
 * the actor's document lists (the guard's checked loader enforces the
 * listing: document_loader.ts), dated no more than an hour ahead and not
 * expired. Every proof the activity carries must count (at most two are
 * looked at: an activity is proved by its actor, not by a crowd).
 *
 * Only the guard calls this, and only for relayed activities: the common
 * delivery (signer = actor) never pays for a proof.
 */
import type { KeyCache } from "@fedify/fedify";
import { verifyProof } from "@fedify/fedify/sig";
import { DataIntegrityProof } from "@fedify/vocab";
import { decodeMultibase, type DocumentLoader } from "@fedify/vocab-runtime";
import { sameOrigin } from "../fetch/trust.ts";
import type { Reachability } from "./key_reachability.ts";

/** What the proofs of a relayed activity say about its actor. */
export type ProofVerdict = "none" | "valid" | "invalid" | "unreachable";

/** Proofs looked at on one activity at most; more make it invalid. */
export const MAX_PROOFS = 2;

export interface ProofOptions {
  /** The guard's loader for this delivery, observed (key_reachability.ts). */
  reachability: Reachability;
  contextLoader: DocumentLoader;
  keyCache: KeyCache;
  /** How far ahead of our clock a proof may be dated (the guard's signature rule). */
  maxFutureSkewMs: number;
}

/**
 * The verdict on `raw` (the activity exactly as received, before any
 * repair: a repaired document would not verify) as `actorId`'s:
 * `none` without a proof, `unreachable` when a key's server could not be
 * reached, `invalid` when any proof fails, `valid` when all hold.
 */
export async function verifyAuthorProof(
  raw: Record<string, unknown>,
  actorId: string,
  options: ProofOptions,
): Promise<ProofVerdict> {
  const listed = raw.proof;
  if (listed == null) return "none";
  const proofs = Array.isArray(listed) ? listed : [listed];
  if (proofs.length === 0) return "none";
  if (proofs.length > MAX_PROOFS) return "invalid";
  // The proof was made before the sender's Linked Data signature was added
  // (Fedify, Mastodon): the document it covers has no `signature`.
  const { signature: _signature, ...proved } = raw;
  for (const json of proofs) {
    const proof = parsedProof(json, actorId, options.maxFutureSkewMs);
    if (!proof) return "invalid";
    const key = await verifyProof(proved, proof, {
      documentLoader: options.reachability.documentLoader,
      contextLoader: options.contextLoader,
      keyCache: options.reachability.keyCache(options.keyCache),
    });
    if (!key) return options.reachability.transient ? "unreachable" : "invalid";
    if (key.controllerId?.href !== actorId) return "invalid";
  }
  return "valid";
}

/**
 * One proof as Fedify's verifier takes it, built from the JSON without a
 * JSON-LD pass; null when it is not one this server accepts (see above).
 */
function parsedProof(
  json: unknown,
  actorId: string,
  maxFutureSkewMs: number,
): DataIntegrityProof | null {
  if (!json || typeof json !== "object" || Array.isArray(json)) return null;
  const p = json as Record<string, unknown>;
  if (p.type !== "DataIntegrityProof" || p.cryptosuite !== "eddsa-jcs-2022") return null;
  if (p.proofPurpose !== "assertionMethod") return null;
  const method = p.verificationMethod;
  if (typeof method !== "string" || !sameOrigin(method, actorId)) return null;
  if (typeof p.proofValue !== "string" || typeof p.created !== "string") return null;
  const created = instant(p.created);
  if (!created || created.epochMilliseconds > Date.now() + maxFutureSkewMs) return null;
  if (p.expires != null) {
    const expires = typeof p.expires === "string" ? instant(p.expires) : null;
    if (!expires || expires.epochMilliseconds <= Date.now()) return null;
  }
  try {
    return new DataIntegrityProof({
      cryptosuite: "eddsa-jcs-2022",
      verificationMethod: new URL(method),
      proofPurpose: "assertionMethod",
      proofValue: decodeMultibase(p.proofValue),
      created,
    });
  } catch {
    return null;
  }
}

function instant(value: string): Temporal.Instant | null {
  try {
    return Temporal.Instant.from(value);
  } catch {
    return null;
  }
}
