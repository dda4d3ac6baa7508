/** Admin::IpBlock: the network always with its prefix (`192.0.2.7/32`), as Mastodon shows it. */
import { ipBlockNetwork, type IpBlockRow } from "../../actors/access_blocks/ip_blocks.ts";

export interface AdminIpBlock {
  id: string;
  ip: string;
  severity: string;
  comment: string;
  created_at: string;
  expires_at: string | null;
}

export function serializeIpBlock(row: IpBlockRow): AdminIpBlock {
  return {
    id: row.id,
    ip: ipBlockNetwork(row),
    severity: row.severity,
    comment: row.comment,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt?.toISOString() ?? null,
  };
}
