/**
 * Mastodon's DomainBlock entity (REST::DomainBlockSerializer), what
 * GET /api/v1/instance/domain_blocks shows: the domain (partly starred when
 * the block is obfuscated), the SHA-256 digest of the real domain (so a
 * reader can check a domain they know against it), the severity and, when
 * the rationale is shown, the public comment.
 */
import { createHash } from "node:crypto";
import type { DomainBlockRow } from "../../actors/moderation/instance_domain_blocks.ts";

/** Hex SHA-256 of the domain, as Mastodon's domain_digest. */
export function domainDigest(domain: string): string {
  return createHash("sha256").update(domain).digest("hex");
}

/**
 * Mastodon's DomainBlock#public_domain: the first and last quarter of the
 * characters and every dot kept, the rest starred (`*`).
 */
export function obfuscatedDomain(domain: string): string {
  const chars = [...domain];
  const visible = Math.floor(chars.length / 4);
  return chars.map((chr, i) => i > visible && i < chars.length - visible && chr !== "." ? "*" : chr)
    .join("");
}

export function serializeDomainBlock(row: DomainBlockRow, withComment: boolean) {
  return {
    domain: row.obfuscate ? obfuscatedDomain(row.domain) : row.domain,
    digest: domainDigest(row.domain),
    severity: row.severity,
    ...(withComment ? { comment: row.publicComment } : {}),
  };
}
