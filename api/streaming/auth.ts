/**
 * Who opens a stream. The token comes, as Mastodon's streaming server takes
 * it, from `Authorization: Bearer`, the `access_token` query parameter
 * (both resolved by the auth middleware already) or the
 * `Sec-WebSocket-Protocol` header (browsers cannot set headers on a
 * WebSocket; the protocol is echoed back in the 101 answer, or the browser
 * drops the connection).
 *
 * Like Mastodon, a stream needs a user token: an application token, an
 * unknown or revoked token, or a user who may not sign in (disabled,
 * unconfirmed, unapproved, suspended) is "Invalid access token". Without
 * any token the connection is anonymous, which only public streams accept,
 * and only while the public preview is on (streams.ts).
 */
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { bearerToken, findToken } from "../middleware/auth.ts";
import { loginRefusal } from "../../actors/auth/sessions.ts";
import type { AppContext } from "../../context.ts";
import { isId } from "../../db/ids.ts";
import { findOwnList } from "../../actors/timelines/lists.ts";
import { NotFoundError } from "../../model/errors.ts";
import {
  checkAccess,
  STREAM_ERRORS,
  StreamError,
  type StreamGrant,
  type Subscription,
} from "./streams.ts";

/** The credentials of a stream request. */
export interface StreamCredentials extends StreamGrant {
  tokenId: string | null;
  /** The Sec-WebSocket-Protocol to echo back, when the token came that way. */
  protocol: string | null;
}

/** The longest token accepted from the protocol header (ours are 43 characters). */
const MAX_TOKEN_LENGTH = 512;

/** Resolves a stream request's credentials; throws {@link StreamError} (401). */
export async function streamCredentials(c: Context<ApiEnv>): Promise<StreamCredentials> {
  const request = c.req.raw;
  let token = c.get("token");
  let user = c.get("user");
  let protocol: string | null = null;
  const presented = bearerToken(request) != null || request.headers.has("authorization");
  if (!presented) {
    const header = request.headers.get("sec-websocket-protocol");
    // Browsers send the protocols as a comma-separated list; the token is the first.
    const first = header?.split(",")[0].trim() ?? "";
    if (!first) return { accountId: null, tokenId: null, scopes: [], protocol: null };
    if (first.length > MAX_TOKEN_LENGTH) throw new StreamError(401, STREAM_ERRORS.invalidToken);
    protocol = first;
    const found = await findToken(c.get("ctx"), first, true);
    token = found?.token ?? null;
    user = found?.user ?? null;
  }
  if (!token || !token.userId || !user || loginRefusal(user)) {
    throw new StreamError(401, STREAM_ERRORS.invalidToken);
  }
  return { accountId: user.accountId, tokenId: token.id, scopes: token.scopes, protocol };
}

/**
 * Checks that a connection may subscribe to `sub`: its scopes (streams.ts)
 * and, for a list, that the list is the viewer's own (someone else's list
 * and an unknown one are refused alike). Throws {@link StreamError}.
 */
export async function checkSubscription(
  ctx: AppContext,
  grant: StreamGrant,
  sub: Subscription,
): Promise<void> {
  checkAccess(grant, sub, ctx.config.publicPreview);
  if (sub.list == null) return;
  if (!isId(sub.list)) throw new StreamError(401, STREAM_ERRORS.listNotAuthorized);
  try {
    await findOwnList(ctx.database.db, grant.accountId!, sub.list);
  } catch (error) {
    if (error instanceof NotFoundError) {
      throw new StreamError(401, STREAM_ERRORS.listNotAuthorized);
    }
    throw error;
  }
}
