/**
 * What a remote actor document says about collections (FEP-7aa9): where
 * its collections are listed (`featuredCollections`, kept only on the
 * actor's own server) and who may feature it (`interactionPolicy.canFeature`,
 * turned into the policy words of model/feature_policy.ts). Read on every
 * upsert of the actor (federation/remote/accounts.ts), from its JSON as
 * received.
 */
import { type FeaturePolicy, policyWordsFromIris } from "../../model/feature_policy.ts";
import { isJson } from "../dialects/terms.ts";
import {
  readCanFeature,
  readFeaturedCollectionsUrl,
  vocabularyOf,
} from "../dialects/featured_collections.ts";
import { sameOrigin } from "../fetch/trust.ts";

/** The accounts columns the actor's collections terms fill. */
export interface ActorCollectionColumns {
  featuredCollectionsUrl: string | null;
  /** Null: the actor publishes no policy (nobody may feature it). */
  featurePolicy: FeaturePolicy | null;
}

/**
 * The columns from the actor's JSON; `actor` gives the IRIs its policy
 * may name (its followers and following collections, itself).
 */
export function actorCollectionColumns(
  json: unknown,
  actor: { uri: string; followersUrl: string | null; followingUrl: string | null },
): ActorCollectionColumns {
  if (!isJson(json)) return { featuredCollectionsUrl: null, featurePolicy: null };
  const vocab = vocabularyOf(json);
  const listUrl = readFeaturedCollectionsUrl(json, vocab);
  const rules = readCanFeature(json, vocab);
  return {
    // A list on another server could name anyone's collections as the actor's.
    featuredCollectionsUrl: listUrl && sameOrigin(listUrl, actor.uri) ? listUrl : null,
    featurePolicy: rules
      ? {
        automatic: policyWordsFromIris(rules.automaticApproval, actor),
        manual: policyWordsFromIris(rules.manualApproval, actor),
      }
      : null,
  };
}
