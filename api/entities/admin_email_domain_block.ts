/**
 * Admin::EmailDomainBlock: the blocked domain and its last seven days of
 * sign-up attempts (`history`, newest first, counts as strings as Mastodon
 * sends them), plus `allow_with_approval` as Mastodon 4.3's serializer adds.
 */
import type { Executor } from "../../db/connection.ts";
import {
  emailDomainBlockHistory,
  type EmailDomainBlockRow,
  type HistoryDay,
} from "../../actors/access_blocks/email_domain_blocks.ts";

export interface AdminEmailDomainBlock {
  id: string;
  domain: string;
  created_at: string;
  history: HistoryDay[];
  allow_with_approval: boolean;
}

/** Serializes blocks, their history read in one query. */
export async function serializeEmailDomainBlocks(
  db: Executor,
  rows: readonly EmailDomainBlockRow[],
): Promise<AdminEmailDomainBlock[]> {
  const history = await emailDomainBlockHistory(db, rows.map((r) => r.id));
  return rows.map((row) => ({
    id: row.id,
    domain: row.domain,
    created_at: row.createdAt.toISOString(),
    history: history.get(row.id) ?? [],
    allow_with_approval: row.allowWithApproval,
  }));
}

/** Serializes one block. */
export async function serializeEmailDomainBlock(
  db: Executor,
  row: EmailDomainBlockRow,
): Promise<AdminEmailDomainBlock> {
  return (await serializeEmailDomainBlocks(db, [row]))[0];
}
