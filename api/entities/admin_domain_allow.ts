/** Mastodon's Admin::DomainAllow: a domain limited federation admits. */
import type { DomainAllowRow } from "../../actors/moderation/instance_domain_blocks.ts";

export function serializeAdminDomainAllow(row: DomainAllowRow) {
  return { id: row.id, domain: row.domain, created_at: row.createdAt.toISOString() };
}
