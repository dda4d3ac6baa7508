/**
 * Signed inbox requests: HTTP-signed with a real local actor's RSA key, so
 * the signature verifies and the body reaches the code behind verification
 * (as tests/fixtures/federation.ts postSigned does). Both the cavage draft
 * and RFC 9421 are used.
 */
import { signRequest } from "@fedify/fedify";
import { getKeyPairs } from "../federation/dispatchers/keys.ts";
import type { AppContext } from "../context.ts";

/** Signs requests as one local actor. */
export interface Signer {
  /** The actor's URL (`{origin}/users/{username}`). */
  actor: string;
  sign(request: Request, body: Uint8Array | null, rfc9421: boolean): Promise<Request>;
}

/** A signer for the local account `accountId` (`username`) of the instance at `origin`. */
export async function localSigner(
  ctx: AppContext,
  origin: string,
  accountId: string,
  username: string,
): Promise<Signer> {
  const [rsa] = await getKeyPairs(ctx, accountId);
  const actor = `${origin}/users/${username}`;
  const keyId = new URL(`${actor}#main-key`);
  return {
    actor,
    sign(request, body, rfc9421) {
      return signRequest(request, rsa.privateKey, keyId, {
        spec: rfc9421 ? "rfc9421" : "draft-cavage-http-signatures-12",
        body: body ? body.slice().buffer : null,
      });
    },
  };
}
