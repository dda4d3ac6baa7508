/**
 * Deliveries about interaction requests (issue 34): the answer of one of our
 * authors to a remote account's favourite, reply or boost that needed
 * approval. The implementation (federation/outbox/interaction_requests.ts)
 * reads the decided `interaction_requests` row and sends the Accept (with
 * the authorization as `result`) or the Reject, in the form the request
 * came in: polite (GoToSocial's `*Request`) or impolite (a plain Create,
 * Like or Announce from a server that knows no policies).
 */
export interface InteractionRequestDeliveries {
  /** Accept or Reject of the remote interaction of `interaction_requests` row `requestId`. */
  interactionAnswered(requestId: string): Promise<void>;
  /**
   * The polite request (ReplyRequest, LikeRequest, AnnounceRequest) of our
   * account's held interaction with a remote status, to that status's author.
   */
  interactionRequested(requestId: string): Promise<void>;
}
