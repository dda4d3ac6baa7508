/**
 * What a local status's Note carries for peers beyond the basic document
 * built in note.ts: the thread (`context`), who may quote it
 * (`interactionPolicy.canQuote`, GoToSocial's vocabulary as Mastodon 4.5
 * reads it) and, for a quote post, the quoted post (`quote`, plus
 * `quoteUrl`, `quoteUri` and `_misskey_quote` for older servers, and an
 * FEP-e232 Link tag) with its approval stamp once granted, and its
 * `replies` collection with the first page embedded (replies_collection.ts).
 *
 * {@link withNoteExtras} is applied by both the object dispatcher and the
 * deliveries, so what a peer fetches equals what it was sent.
 */
import { effectiveQuotePolicy, type QuotePolicy } from "../../model/quote_policy.ts";
import { policyForNote } from "./interaction_policy.ts";
import type { Context } from "@fedify/fedify";
import {
  InteractionPolicy,
  InteractionRule,
  Link,
  Mention,
  type Note,
  type Object as APObject,
  PUBLIC_COLLECTION,
  type Question,
} from "@fedify/vocab";
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { accounts, conversations, quotes, statuses } from "../../db/schema/mod.ts";
import { firstReplies, type ListedReply } from "../../db/queries/replies.ts";
import { EMBEDDED_REPLIES, repliesProperty } from "./replies.ts";
import { activityIds, localUris } from "../../model/uris.ts";

type StatusRow = typeof statuses.$inferSelect;

/** The media type FEP-e232 gives a Link to an ActivityStreams object. */
const AS_MEDIA_TYPE = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

/** The thread IRI of a conversation: the remote `context` if known, else ours. */
export function contextUri(origin: string, conversation: { id: string; uri: string | null }) {
  return conversation.uri ?? localUris(origin).context(conversation.id);
}

/**
 * Who may quote, as `canQuote`: Public, the author's followers, or the
 * author alone; with who may like, reply and boost (interaction_policy.ts).
 */
function interactionPolicyOf(
  ctx: Context<AppContext>,
  status: StatusRow,
  author: { uri: string; username: string },
  mentioned: URL[],
) {
  const authorUri = author.uri;
  const username = author.username;
  const policy = effectiveQuotePolicy(status.visibility, status.quoteApprovalPolicy as QuotePolicy);
  const automatic = policy === "public"
    ? PUBLIC_COLLECTION
    : policy === "followers"
    ? ctx.getFollowersUri(username)
    : new URL(authorUri);
  return new InteractionPolicy({
    ...policyForNote(ctx, status, author, mentioned),
    canQuote: new InteractionRule({ automaticApproval: automatic }),
  });
}

/** What {@link withNoteExtras} reads for a status; {@link loadNoteExtras} reads it. */
export interface NoteExtras {
  author: { uri: string; username: string };
  conversation: typeof conversations.$inferSelect | null;
  quote: {
    id: string;
    state: string;
    approvalUri: string | null;
    quotedUri: string;
    quotedUrl: string | null;
    quotedLocal: boolean;
    quotedAuthorUri: string;
  } | null;
  /** The first replies listed in the `replies` collection (one more than embedded). */
  replies: ListedReply[];
}

/**
 * Reads the extras of many statuses at once (a page of a collection): one
 * query per kind of row. Statuses whose author is missing are left out.
 */
export async function loadNoteExtras(
  db: Executor,
  rows: readonly StatusRow[],
): Promise<Map<string, NoteExtras>> {
  const result = new Map<string, NoteExtras>();
  if (rows.length === 0) return result;
  const conversationIds = rows.flatMap((s) => s.conversationId ? [s.conversationId] : []);
  const [authors, conversationRows, quoteRows, replies] = await Promise.all([
    db.select({ id: accounts.id, uri: accounts.uri, username: accounts.username })
      .from(accounts).where(anyId(accounts.id, [...new Set(rows.map((s) => s.accountId))])),
    conversationIds.length
      ? db.select().from(conversations).where(anyId(conversations.id, conversationIds))
      : [],
    db.select({
      statusId: quotes.statusId,
      id: quotes.id,
      state: quotes.state,
      approvalUri: quotes.approvalUri,
      quotedUri: statuses.uri,
      quotedUrl: statuses.url,
      quotedLocal: statuses.local,
      quotedAuthorUri: accounts.uri,
    }).from(quotes).innerJoin(statuses, eq(statuses.id, quotes.quotedStatusId))
      .innerJoin(accounts, eq(accounts.id, statuses.accountId))
      .where(anyId(quotes.statusId, rows.map((s) => s.id))),
    firstReplies(db, rows.map((s) => s.id), EMBEDDED_REPLIES + 1),
  ]);
  for (const status of rows) {
    const author = authors.find((a) => a.id === status.accountId);
    if (!author) continue;
    const quote = quoteRows.find((q) => q.statusId === status.id);
    result.set(status.id, {
      author: { uri: author.uri, username: author.username },
      conversation: conversationRows.find((c) => c.id === status.conversationId) ?? null,
      quote: quote
        ? {
          id: quote.id,
          state: quote.state,
          approvalUri: quote.approvalUri,
          quotedUri: quote.quotedUri,
          quotedUrl: quote.quotedUrl,
          quotedLocal: quote.quotedLocal,
          quotedAuthorUri: quote.quotedAuthorUri,
        }
        : null,
      replies: replies.get(status.id) ?? [],
    });
  }
  return result;
}

/**
 * Adds the thread, the quote policy and the quote to a local status's Note
 * or Question; `extras` when already read in a batch, else read here.
 */
export async function withNoteExtras<T extends Note | Question>(
  ctx: Context<AppContext>,
  status: StatusRow,
  object: T,
  extras?: NoteExtras,
): Promise<T> {
  const loaded = extras ?? (await loadNoteExtras(ctx.data.database.db, [status])).get(status.id);
  if (!loaded) return object;
  const { author, conversation, quote } = loaded;
  // Our own stamps need no stored IRI: they are served from the quotes row.
  const stamp = quote?.state !== "accepted" ? null : quote.approvalUri ??
    (quote.quotedLocal ? activityIds.quoteStamp(quote.quotedAuthorUri, quote.id) : null);
  const tags: (APObject | Link | URL)[] = await Array.fromAsync(
    object.getTags({ documentLoader: () => Promise.reject(new Error("not fetched")) }),
  ).catch(() => []);
  if (quote) {
    tags.push(
      new Link({
        mediaType: AS_MEDIA_TYPE,
        href: new URL(quote.quotedUri),
        name: `RE: ${quote.quotedUrl ?? quote.quotedUri}`,
      }),
    );
  }
  const values = {
    // The replies collection with its first page, as Mastodon embeds it (replies_collection.ts).
    replies: repliesProperty(status.uri, loaded.replies),
    contexts: conversation ? [new URL(contextUri(ctx.data.config.origin, conversation))] : [],
    interactionPolicy: interactionPolicyOf(
      ctx,
      status,
      author,
      tags.flatMap((t) => t instanceof Mention && t.href ? [t.href] : []),
    ),
    // An approved reply names its authorization (GoToSocial reads `approvedBy`, 0.21 the typed one).
    ...(status.approvedByUri && status.inReplyToId
      ? {
        approvedBy: new URL(status.approvedByUri),
        replyAuthorization: new URL(status.approvedByUri),
      }
      : {}),
    ...(quote
      ? {
        quote: new URL(quote.quotedUri),
        quoteUrl: new URL(quote.quotedUri),
        quoteAuthorization: stamp ? new URL(stamp) : null,
        tags,
      }
      : {}),
  };
  return object.clone(values) as T;
}
