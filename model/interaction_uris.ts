/**
 * The IRIs of interaction policy exchanges (issue 34): our authorizations,
 * our answers to interaction requests, and our own requests. Pure: each is
 * derived from an IRI we already minted (an account's or a status's) and a
 * row id, so nothing about them needs storing but the authorization, which
 * the request row keeps.
 */

/** Where an approval of ours is served (federation/dispatchers, /users/{u}/authorizations/{id}). */
export function authorizationUri(authorUri: string, requestId: string): string {
  return `${authorUri}/authorizations/${requestId}`;
}

/** Our Accept of an interaction request. */
export function interactionAcceptUri(authorUri: string, requestId: string): string {
  return `${authorUri}#interaction_accepts/${requestId}`;
}

/** Our Reject of an interaction request. */
export function interactionRejectUri(authorUri: string, requestId: string): string {
  return `${authorUri}#interaction_rejects/${requestId}`;
}

/** Our ReplyRequest for a reply of ours. */
export function replyRequestUri(replyUri: string): string {
  return `${replyUri}/reply_request`;
}

/** Our AnnounceRequest for a boost of ours (beside the boost's `/activity`). */
export function announceRequestUri(accountUri: string, boostId: string): string {
  return `${accountUri}/statuses/${boostId}/announce_request`;
}

/** Our LikeRequest for a favourite of ours (beside its `#likes/{id}`). */
export function likeRequestUri(accountUri: string, favouriteId: string): string {
  return `${accountUri}#like_requests/${favouriteId}`;
}
