/**
 * Mastodon's canonical e-mail address (`email_to_canonical_email`): the
 * address lowercased, and in its local part every dot removed and anything
 * from the first `+` on dropped, so `Jane.Doe+spam@Example.com` and
 * `janedoe@example.com` are one address. Blocks keep only its SHA-256.
 */
import { encodeHex } from "../formatting/encoding.ts";

/** The canonical form of an address. */
export function canonicalEmail(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.indexOf("@");
  const local = at < 0 ? lower : lower.slice(0, at);
  const domain = at < 0 ? "" : lower.slice(at + 1);
  const canonicalLocal = local.replaceAll(".", "").split("+", 1)[0];
  return at < 0 ? canonicalLocal : `${canonicalLocal}@${domain}`;
}

/** The SHA-256 (lowercase hex) of the canonical form, as CanonicalEmailBlock stores it. */
export async function canonicalEmailHash(email: string): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalEmail(email));
  return encodeHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/** Whether a string looks like such a hash (64 hex digits). */
export function isCanonicalEmailHash(value: string): boolean {
  return /^[0-9a-f]{64}$/.test(value);
}
