/**
 * The URI scheme of local objects, Mastodon's, written once: what actors/
 * stores as a new row's `uri` and `url`, what federation/ registers its
 * dispatchers and inbox at, the ids of the activities it sends, and the
 * page URLs of web/ and of the API's entities.
 *
 * - {@link LOCAL_PATHS}: the paths as Fedify's URI templates (`{identifier}`
 *   is the username), for the dispatchers;
 * - {@link localUris}: the same paths (and the pages') filled in under an
 *   origin; under `""` they are the paths themselves, for links in pages;
 * - {@link activityIds}: ids made from an actor's or an object's IRI (a
 *   fragment or a sub-path of it), as Mastodon makes them, so that an
 *   activity sent twice keeps its id.
 */

/** The paths of local ActivityPub objects, as Fedify's URI templates. */
export const LOCAL_PATHS = {
  actor: "/users/{identifier}",
  inbox: "/users/{identifier}/inbox",
  sharedInbox: "/inbox",
  outbox: "/users/{identifier}/outbox",
  followers: "/users/{identifier}/followers",
  following: "/users/{identifier}/following",
  featured: "/users/{identifier}/collections/featured",
  featuredTags: "/users/{identifier}/collections/tags",
  status: "/users/{identifier}/statuses/{id}",
  replies: "/users/{identifier}/statuses/{id}/replies",
  quoteAuthorization: "/users/{identifier}/quote_authorizations/{id}",
  /** Our Reply/Like/AnnounceAuthorization (issue 34), named after the interaction request. */
  authorization: "/users/{identifier}/authorizations/{id}",
} as const;

/** A path of {@link LOCAL_PATHS} with its values. */
function fill(template: string, identifier: string, id = ""): string {
  return template.replace("{identifier}", identifier).replace("{id}", id);
}

/** The URIs and page URLs of local objects under one origin; see {@link localUris}. */
export class LocalUris {
  constructor(readonly origin: string) {}

  /** A local actor's IRI (its `uri`). */
  actor(username: string): string {
    return this.origin + fill(LOCAL_PATHS.actor, username);
  }
  inbox(username: string): string {
    return this.origin + fill(LOCAL_PATHS.inbox, username);
  }
  sharedInbox(): string {
    return this.origin + LOCAL_PATHS.sharedInbox;
  }
  outbox(username: string): string {
    return this.origin + fill(LOCAL_PATHS.outbox, username);
  }
  followers(username: string): string {
    return this.origin + fill(LOCAL_PATHS.followers, username);
  }
  following(username: string): string {
    return this.origin + fill(LOCAL_PATHS.following, username);
  }
  featured(username: string): string {
    return this.origin + fill(LOCAL_PATHS.featured, username);
  }
  featuredTags(username: string): string {
    return this.origin + fill(LOCAL_PATHS.featuredTags, username);
  }
  /** A local status's IRI (its `uri`). */
  status(username: string, id: string): string {
    return this.origin + fill(LOCAL_PATHS.status, username, id);
  }
  /** The thread IRI of a conversation that started here (a Note's `context`). */
  context(conversationId: string): string {
    return `${this.origin}/contexts/${conversationId}`;
  }
  /** The ActivityPub id of a local custom emoji. */
  emoji(id: string): string {
    return `${this.origin}/emojis/${id}`;
  }

  /** A profile's page (an account's `url`); `tab` is `with_replies`, `media`… */
  profile(username: string, tab?: string): string {
    return `${this.origin}/@${username}${tab ? `/${tab}` : ""}`;
  }
  /** A status's page (its `url`); `username` may be a remote account's `user@domain`. */
  statusPage(username: string, id: string): string {
    return `${this.origin}/@${username}/${id}`;
  }
  /** A status's embeddable page (oEmbed). */
  embed(username: string, id: string): string {
    return `${this.statusPage(username, id)}/embed`;
  }
  /** A profile's statuses with one hashtag (a featured tag's `url`). */
  taggedPage(username: string, tag: string): string {
    return `${this.origin}/@${username}/tagged/${encodeURIComponent(tag)}`;
  }
  /** A hashtag's page (a Tag's `url`, a Hashtag's `href`). */
  tag(name: string): string {
    return `${this.origin}/tags/${encodeURIComponent(name)}`;
  }
}

/** The URIs of local objects under `origin` (`""`: the paths alone, for page links). */
export function localUris(origin: string): LocalUris {
  return new LocalUris(origin);
}

/**
 * Ids made from an actor's or an object's IRI, in Mastodon's shapes. They
 * are used for local actors and objects only: a remote activity keeps the
 * id its server gave it.
 */
export const activityIds = {
  /** A Follow (and the follow row's `uri`). */
  follow: (actorUri: string, followId: string) => `${actorUri}#follows/${followId}`,
  /** Whether `uri` is a Follow id of ours ({@link activityIds.follow}). */
  isFollow: (uri: string) => uri.includes("#follows/"),
  acceptFollow: (actorUri: string, followId: string) => `${actorUri}#accepts/follows/${followId}`,
  rejectFollow: (actorUri: string, followId: string) => `${actorUri}#rejects/follows/${followId}`,
  block: (actorUri: string, blockId: string) => `${actorUri}#blocks/${blockId}`,
  like: (actorUri: string, favouriteId: string) => `${actorUri}#likes/${favouriteId}`,
  /** A poll vote (the vote row's `uri`; its Create is {@link activityIds.activity} of it). */
  vote: (actorUri: string, voteId: string) => `${actorUri}#votes/${voteId}`,
  pin: (actorUri: string, pinId: string) => `${actorUri}#pins/${pinId}`,
  unpin: (actorUri: string, pinId: string) => `${actorUri}#pins/${pinId}/remove`,
  report: (actorUri: string, reportId: string) => `${actorUri}#reports/${reportId}`,
  /** An Update of an actor or of a status; `updateId` is recorded with the intent. */
  update: (objectUri: string, updateId: string) => `${objectUri}#updates/${updateId}`,
  move: (actorUri: string, moveId: string) => `${actorUri}#moves/${moveId}`,
  /** The Delete of an actor, a status or a quote stamp. */
  delete: (objectUri: string) => `${objectUri}#delete`,
  /** The Create of a status or a vote, or the Announce that a boost is. */
  activity: (objectUri: string) => `${objectUri}/activity`,
  /** A local boost's IRI: the Announce, under its actor as a status would be. */
  boost: (actorUri: string, boostId: string) => `${actorUri}/statuses/${boostId}/activity`,
  /** The stamp (FEP-044f QuoteAuthorization) of a quote of the author's status. */
  quoteStamp: (authorUri: string, quoteId: string) =>
    `${authorUri}/quote_authorizations/${quoteId}`,
  /** The Accept of a QuoteRequest: the stamp's. */
  acceptQuote: (stampUri: string) => `${stampUri}#accept`,
  /** The Reject of a QuoteRequest, named after the request. */
  rejectQuote: (authorUri: string, requestUri: string) =>
    `${authorUri}#quote_rejections/${encodeURIComponent(requestUri)}`,
  /**
   * An approval of ours of a favourite, reply or boost (issue 34), served as
   * a Like/Reply/AnnounceAuthorization; named after the interaction request.
   */
  authorization: (authorUri: string, requestId: string) =>
    `${authorUri}/authorizations/${requestId}`,
  /** Our Accept and Reject of an interaction request. */
  acceptInteraction: (authorUri: string, requestId: string) =>
    `${authorUri}#interaction_accepts/${requestId}`,
  rejectInteraction: (authorUri: string, requestId: string) =>
    `${authorUri}#interaction_rejects/${requestId}`,
  /** Our ReplyRequest for a reply of ours. */
  replyRequest: (replyUri: string) => `${replyUri}/reply_request`,
  /** Our AnnounceRequest for a boost of ours (beside the boost's `/activity`). */
  announceRequest: (actorUri: string, boostId: string) =>
    `${actorUri}/statuses/${boostId}/announce_request`,
  /** Our LikeRequest for a favourite of ours (beside its `#likes/{id}`). */
  likeRequest: (actorUri: string, favouriteId: string) =>
    `${actorUri}#like_requests/${favouriteId}`,
};
