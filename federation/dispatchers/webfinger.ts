/**
 * WebFinger. Fedify's handler answers (acct:, actor URL and, through the
 * actor's alias mapper, the profile URL); this module adds the links it does
 * not know about and completes its document the way Mastodon shapes it.
 */
import type { Federation } from "@fedify/fedify";
import type { AppContext } from "../../context.ts";

export const PROFILE_PAGE_REL = "http://webfinger.net/rel/profile-page";
export const SUBSCRIBE_REL = "http://ostatus.org/schema/1.0/subscribe";

/** Registers the extra links: the remote-follow (subscribe) template. */
export function registerWebFingerLinks(federation: Federation<AppContext>): void {
  federation.setWebFingerLinksDispatcher((ctx) => [{
    rel: SUBSCRIBE_REL,
    // RFC 6570 template, filled by the remote user's server; not a URL.
    template: `${ctx.data.config.origin}/authorize_interaction?uri={uri}`,
  }]);
}

interface JrdLink {
  rel: string;
  href?: string;
  type?: string;
  template?: string;
}

interface Jrd {
  subject: string;
  aliases?: string[];
  links: JrdLink[];
}

/**
 * Completes a JRD from Fedify's handler: the profile page link gets its
 * `text/html` type, and `aliases` list both the actor and the profile URL
 * (Fedify lists only the actor), minus the subject itself.
 */
export function completeWebFingerJrd(jrd: Jrd): Jrd {
  const links = jrd.links.map((link) =>
    link.rel === PROFILE_PAGE_REL && link.type == null ? { ...link, type: "text/html" } : link
  );
  const self = links.find((link) => link.rel === "self")?.href;
  const profile = links.find((link) => link.rel === PROFILE_PAGE_REL)?.href;
  const aliases = [...(jrd.aliases ?? [])];
  for (const url of [profile, self]) {
    if (url && url !== jrd.subject && !aliases.includes(url)) aliases.push(url);
  }
  // Mastodon's order: profile page, then actor, then any acct: alias.
  aliases.sort((a, b) => aliasRank(a, profile, self) - aliasRank(b, profile, self));
  return { subject: jrd.subject, aliases, links };
}

function aliasRank(alias: string, profile?: string, self?: string): number {
  return alias === profile ? 0 : alias === self ? 1 : 2;
}
