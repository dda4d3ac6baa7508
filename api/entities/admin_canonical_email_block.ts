/** Admin::CanonicalEmailBlock: only the hash of the canonical address is ever kept or shown. */
import type { CanonicalEmailBlockRow } from "../../actors/access_blocks/canonical_email_blocks.ts";

export interface AdminCanonicalEmailBlock {
  id: string;
  canonical_email_hash: string;
}

export function serializeCanonicalEmailBlock(
  row: CanonicalEmailBlockRow,
): AdminCanonicalEmailBlock {
  return { id: row.id, canonical_email_hash: row.canonicalEmailHash };
}
