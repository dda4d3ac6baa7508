/**
 * An activity we send as a JSON document written by hand, for vocabulary
 * Fedify 2.3.6 does not have (FEP-7aa9's FeatureRequest, FeaturedCollection,
 * FeaturedItem, FeatureAuthorization: federation/objects/featured_collections.ts).
 *
 * It is a Fedify `Activity` (its id and actor set, so `sendActivity` takes
 * it) whose `toJsonLd` answers the prebuilt compact document, plus the
 * integrity proofs Fedify adds while sending. Fedify proves (FEP-8b32) and
 * LD-signs what `toJsonLd` returns, queues it and signs the HTTP requests,
 * as for any other activity; its `clone` (used by the activity transformers
 * and by the prover) keeps the document. The wire class
 * (federation/objects/mastodon_terms.ts `wireActivity`) then shapes it as
 * everything else we send. Once Fedify ships the FEP's classes, these
 * activities become ordinary vocabulary objects.
 */
import { Activity } from "@fedify/vocab";

type Json = Record<string, unknown>;

/** An activity whose JSON-LD is a document built by hand (compact form). */
export class RawActivity extends Activity {
  /** The compact document, `@context` included, without proofs. */
  document: Json = {};

  /** The activity for `document`, which must carry an http(s) `id` and `actor`. */
  static of(document: Json): RawActivity {
    const { id, actor } = document;
    if (typeof id !== "string" || typeof actor !== "string") {
      throw new TypeError("A raw activity needs an id and an actor");
    }
    const activity = new RawActivity({ id: new URL(id), actor: new URL(actor) });
    activity.document = document;
    return activity;
  }

  // deno-lint-ignore no-explicit-any
  override clone(...args: any[]): any {
    // Fedify's clone builds `new this.constructor(…)` and copies its own fields only.
    const copy = super.clone(...args) as RawActivity;
    copy.document = this.document;
    return copy;
  }

  // deno-lint-ignore no-explicit-any
  override async toJsonLd(options?: any): Promise<unknown> {
    const proofs: unknown[] = [];
    for await (const proof of this.getProofs({ contextLoader: options?.contextLoader })) {
      proofs.push(
        await proof.toJsonLd({ format: "compact", contextLoader: options?.contextLoader }),
      );
    }
    // A new object each time: callers (the wire shape, the prover) may hold the last one.
    const json: Json = structuredClone(this.document);
    if (proofs.length > 0) json.proof = proofs.length === 1 ? proofs[0] : proofs;
    return json;
  }
}
