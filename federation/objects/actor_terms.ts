/**
 * What our actor documents say that Fedify's Person cannot (Mastodon 4.6/4.7),
 * added to the compact document by the wire classes (mastodon_terms.ts), so
 * served actors and the Update(Person) we send carry the same terms, covered
 * by the proof and the signature:
 *
 * - `webfinger` (FEP-2c59): the account's handle as `acct:user@domain`, which
 *   Mastodon 4.6 asks WebFinger first;
 * - `showFeatured`, `showMedia`, `showRepliesInMedia` (Mastodon's terms for
 *   the profile tabs' switches).
 *
 * Avatar and header descriptions travel as the `name` of `icon` and `image`,
 * which Fedify's Image has (federation/dispatchers/actor.ts). Remote actors'
 * terms are read back by federation/dialects/terms.ts.
 */
import type { CarriesTerms, NodeExtras } from "./mastodon_terms.ts";

/** The context definitions of the terms below (inline: no context URL to fetch). */
const PROFILE_CONTEXT = {
  toot: "http://joinmastodon.org/ns#",
  showFeatured: "toot:showFeatured",
  showMedia: "toot:showMedia",
  showRepliesInMedia: "toot:showRepliesInMedia",
  webfinger: {
    "@id": "https://purl.archive.org/socialweb/webfinger#webfinger",
    "@type": "http://www.w3.org/2001/XMLSchema#string",
  },
};

/** The profile terms of a local account (a suspended one states only its handle). */
export function profileTerms(
  account: {
    username: string;
    showFeatured: boolean;
    showMedia: boolean;
    showMediaReplies: boolean;
  },
  domain: string,
  suspended: boolean,
): NodeExtras {
  const webfinger = `acct:${account.username}@${domain}`;
  return {
    members: suspended ? { webfinger } : {
      webfinger,
      showFeatured: account.showFeatured,
      showMedia: account.showMedia,
      showRepliesInMedia: account.showMediaReplies,
    },
    context: PROFILE_CONTEXT,
  };
}

/**
 * Adds `extras` to the terms `carrier` writes on the node `id`, keeping
 * those already there (another module's terms of the same actor).
 */
export function addNodeTerms(carrier: CarriesTerms, id: string, extras: NodeExtras): void {
  const present = carrier.mastodonTerms.get(id);
  const before = present && "members" in present ? present : { members: {}, context: {} };
  carrier.mastodonTerms.set(id, {
    members: { ...before.members, ...extras.members },
    context: { ...before.context, ...extras.context },
  });
}
