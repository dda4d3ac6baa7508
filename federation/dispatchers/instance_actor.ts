/**
 * The instance actor: an Application at `/actor` whose preferredUsername is
 * the domain, as Mastodon has. It signs our outgoing fetches (peers in secure
 * mode refuse unsigned GETs) and, later, Flags.
 */
import type { RequestContext } from "@fedify/fedify";
import { Application, Endpoints } from "@fedify/vocab";
import type { AppContext } from "../../context.ts";
import { INSTANCE_KEY_OWNER, type KeyPairCache } from "./keys.ts";
import type { SigningIdentity } from "../fetch/document_loader.ts";

/**
 * Fedify's identifier for the instance actor. The dot keeps it out of the
 * username space (`[a-z0-9_]+`), so no account can ever take it.
 */
export const INSTANCE_ACTOR = "instance.actor";

/** The fixed path of the instance actor (mapped with Fedify's `mapActorAlias`). */
export const INSTANCE_ACTOR_PATH = "/actor";

/** Whether a WebFinger username names the instance actor (acct:domain@domain). */
export function isInstanceActorHandle(config: AppContext["config"], username: string): boolean {
  return username.toLowerCase() === config.domain.toLowerCase();
}

/**
 * Builds the instance actor document.
 *
 * Its `inbox` is the personal inbox Fedify routes for the identifier
 * (`/users/instance.actor/inbox`): Fedify has one inbox path template, so
 * `/actor/inbox` cannot be verified by it. Peers deliver to the shared inbox
 * anyway, which the actor lists in `endpoints`.
 */
export async function buildInstanceActor(ctx: RequestContext<AppContext>): Promise<Application> {
  const { config } = ctx.data;
  const keys = await ctx.getActorKeyPairs(INSTANCE_ACTOR);
  return new Application({
    id: ctx.getActorUri(INSTANCE_ACTOR),
    preferredUsername: config.domain,
    name: config.instance.title,
    inbox: ctx.getInboxUri(INSTANCE_ACTOR),
    outbox: ctx.getOutboxUri(INSTANCE_ACTOR),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    publicKey: keys[0]?.cryptographicKey,
    assertionMethods: keys.map((key) => key.multikey),
    manuallyApprovesFollowers: true,
    discoverable: false,
    indexable: false,
  });
}

/**
 * The key the instance actor signs fetches with, under the id its document
 * publishes (`/actor#main-key`: Fedify names an actor's first key so), for
 * the document loaders, which run where no Fedify context is at hand.
 */
export async function instanceSigningIdentity(
  keys: KeyPairCache,
  origin: string,
): Promise<SigningIdentity> {
  const [rsa] = await keys.get(INSTANCE_KEY_OWNER);
  return { keyId: new URL(`${INSTANCE_ACTOR_PATH}#main-key`, origin), privateKey: rsa.privateKey };
}
