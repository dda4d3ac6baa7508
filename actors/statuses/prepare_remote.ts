/**
 * A status from another server, made ready for the posting transaction: its
 * HTML is sanitized and its accounts and tags resolved by federation/
 * already, so only the stored rows it names are read here.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { idFromTime } from "../../db/ids.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import type { RemoteStatusInput, StatusRow } from "./create.ts";
import type { PreparedStatus } from "./write_status.ts";

/** What the transaction writes for a remote status (nothing is refused here). */
export async function prepareRemote(
  ctx: AppContext,
  input: RemoteStatusInput,
): Promise<PreparedStatus> {
  const db = ctx.database.db;
  const createdAt = input.createdAt ?? new Date();
  let parent: StatusRow | null = null;
  if (input.inReplyToId) {
    const [row] = await db.select().from(statuses).where(eq(statuses.id, input.inReplyToId));
    parent = row ?? null;
  }
  let quoted: StatusRow | null = null;
  if (input.quotedStatusId) {
    const [row] = await db.select().from(statuses).where(eq(statuses.id, input.quotedStatusId));
    quoted = row ?? null;
  }
  const mentioned = [...new Set(input.mentionedAccountIds ?? [])];
  const local = mentioned.length
    ? await db.select({ id: accounts.id }).from(accounts)
      .where(and(
        sql`${accounts.id} IN (${sql.join(mentioned.map((m) => sql`${m}::bigint`), sql`, `)})`,
        sql`${accounts.domain} IS NULL`,
      ))
    : [];
  return {
    id: idFromTime(createdAt),
    uri: input.uri,
    url: input.url ?? null,
    content: input.content,
    text: null,
    parsed: null,
    visibility: input.visibility,
    quotePolicy: input.quoteApprovalPolicy ?? "nobody",
    language: input.language ?? null,
    parent,
    quoted,
    quoteState: quoted ? input.quoteState ?? "pending" : null,
    mentioned: mentioned.filter((m) => m !== input.accountId),
    localMentioned: new Set(local.map((r) => r.id)),
    tagNames: input.tagNames ?? [],
    interactionPolicy: input.interactionPolicy ?? null,
    createdAt,
  };
}
