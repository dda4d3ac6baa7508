/**
 * Mastodon's Admin::DomainBlock (REST::Admin::DomainBlockSerializer): every
 * field, the private comment included, for staff with manage_federation.
 */
import type { DomainBlockRow } from "../../actors/moderation/instance_domain_blocks.ts";
import { domainDigest } from "./domain_block.ts";

export function serializeAdminDomainBlock(row: DomainBlockRow) {
  return {
    id: row.id,
    domain: row.domain,
    digest: domainDigest(row.domain),
    created_at: row.createdAt.toISOString(),
    severity: row.severity,
    reject_media: row.rejectMedia,
    reject_reports: row.rejectReports,
    private_comment: row.privateComment,
    public_comment: row.publicComment,
    obfuscate: row.obfuscate,
  };
}
