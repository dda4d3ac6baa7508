/**
 * What a local author asks to post, checked before the posting transaction
 * opens (Mastodon's PostStatusService; decisions in create.ts): the author,
 * the text (parsed once: its length, its mentions, its hashtags, its emoji
 * and its HTML all read that parse), the reply, the mentions (remote ones
 * may be looked up: no lock waits for the network) and the quote.
 */
import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { preparedQuery } from "../../db/queries/prepared.ts";
import { findVisibleStatus } from "../../db/queries/visibility.ts";
import { accounts, statuses, users } from "../../db/schema/mod.ts";
import { resolveSettings } from "../../model/user_settings.ts";
import { resolveMentionAccounts } from "../formatting/mentions.ts";
import { type ParsedText, parseText } from "../formatting/parsed_text.ts";
import { textToHtml } from "../formatting/text_to_html.ts";
import { checkUsableTags, type ComposedText, composeText } from "./compose.ts";
import type { LocalStatusInput, StatusRow } from "./create.ts";
import { resolvePolicy } from "./interaction_policy.ts";
import {
  checkAllowedMentions,
  invalid,
  QUOTE_NOT_FOUND,
  refuseUnlessLocalPoster,
  REPLY_NOT_FOUND,
  StatusError,
} from "./errors.ts";
import { checkStatusInput } from "./validation.ts";
import type { Visibility } from "../../model/visibility.ts";
import { closedToQuotes } from "../../model/quote_policy.ts";
import { localUris } from "../../model/uris.ts";
import { mayQuote } from "./quote_approval.ts";
import type { PreparedStatus } from "./write_status.ts";

async function loadAuthor(db: Executor, accountId: string) {
  const [row] = await preparedQuery(
    db,
    "status_author",
    (db) =>
      db.select({ account: accounts, settings: users.settings }).from(accounts)
        .leftJoin(users, eq(users.accountId, accounts.id))
        .where(eq(accounts.id, sql.placeholder("id"))).limit(1),
  ).execute({ id: accountId });
  if (!row || row.account.deletedAt || row.account.suspendedAt) {
    throw new StatusError(404, "Record not found");
  }
  return row;
}

/**
 * The status a reply or a quote names, when the author may see it (a boost
 * stands for the boosted status); 404 with `notFound` otherwise.
 */
async function visibleTarget(
  db: Executor,
  authorId: string,
  statusId: string,
  notFound: string,
): Promise<StatusRow> {
  const seen = await findVisibleStatus(db, authorId, statusId);
  let target: StatusRow | null = seen;
  if (seen?.reblogOfId) {
    const [original] = await db.select().from(statuses).where(eq(statuses.id, seen.reblogOfId));
    target = original && !original.deletedAt ? original : null;
  }
  if (!target) throw new StatusError(404, notFound);
  return target;
}

/** Applies the 4.5 quote rules; returns the visibility the quote gets. */
async function checkQuote(
  db: Executor,
  authorId: string,
  quoted: StatusRow,
  visibility: Visibility,
  mentioned: string[],
): Promise<Visibility> {
  const own = quoted.accountId === authorId;
  if (closedToQuotes(quoted, authorId)) throw invalid("Quoted post cannot be quoted");
  if (!await mayQuote(db, quoted, authorId)) {
    throw invalid("Quoting this post is not allowed by its author");
  }
  let result = visibility;
  if (quoted.visibility === "private") result = visibility === "direct" ? "direct" : "private";
  if (result === "direct" && !own && !mentioned.includes(quoted.accountId)) {
    throw invalid("A direct quote must mention the author of the quoted post");
  }
  return result;
}

/** The `RE:` paragraph of a quote whose text does not link the quoted post ("" when it does). */
function quoteInline(origin: string, text: string, quoted: StatusRow): string {
  const link = quoted.url ?? quoted.uri;
  if (text.includes(link) || text.includes(quoted.uri)) return "";
  return `<p class="quote-inline">RE: ${textToHtml(link, { origin })}</p>`;
}

/**
 * The text's mentions resolved (stored accounts, then the resolver) and its
 * HTML; refuses unusable hashtags and mentions outside `allowed_mentions`.
 */
async function composeLocal(
  ctx: AppContext,
  input: LocalStatusInput,
  parsed: ParsedText,
): Promise<ComposedText> {
  const db = ctx.database.db;
  const { config } = ctx;
  const mentioned = await resolveMentionAccounts(
    db,
    config.domain,
    [parsed],
    input.resolveRemoteAccount,
  );
  const composed = composeText(config.origin, parsed, mentioned);
  await checkUsableTags(db, composed.tagNames);
  checkAllowedMentions(input.allowedMentions, composed.mentionedAccountIds, input.accountId);
  return composed;
}

/** Checks a local post and builds what the transaction writes (StatusError when refused). */
export async function prepareLocal(
  ctx: AppContext,
  input: LocalStatusInput,
): Promise<PreparedStatus> {
  const db = ctx.database.db;
  const { config } = ctx;
  const { account, settings } = await loadAuthor(db, input.accountId);
  refuseUnlessLocalPoster(account);
  const prefs = resolveSettings(settings, account);
  const text = input.text ?? "";
  const parsed = parseText(text);
  const language = checkStatusInput(config, {
    text: parsed,
    spoilerText: input.spoilerText ?? "",
    mediaCount: (input.mediaIds ?? []).length,
    poll: input.poll,
    hasPoll: input.poll != null,
    language: input.language,
  }) ?? prefs.defaultLanguage;
  let visibility: Visibility = input.visibility ?? prefs.defaultPrivacy;
  const parent = input.inReplyToId
    ? await visibleTarget(db, account.id, input.inReplyToId, REPLY_NOT_FOUND)
    : null;
  const composed = await composeLocal(ctx, input, parsed);
  let quoted: StatusRow | null = null;
  if (input.quotedStatusId) {
    quoted = await visibleTarget(db, account.id, input.quotedStatusId, QUOTE_NOT_FOUND);
    visibility = await checkQuote(db, account.id, quoted, visibility, composed.mentionedAccountIds);
  }
  const { quotePolicy, interactionPolicy } = resolvePolicy(
    { quotePolicy: input.quoteApprovalPolicy, interactionPolicy: input.interactionPolicy },
    visibility,
    prefs.interactionPolicies[visibility],
    prefs.defaultQuotePolicy,
  );
  const id = newId();
  const uris = localUris(config.origin);
  return {
    id,
    uri: uris.status(account.username, id),
    url: uris.statusPage(account.username, id),
    content: (quoted ? quoteInline(config.origin, text, quoted) : "") + composed.content,
    text,
    parsed,
    visibility,
    quotePolicy,
    language,
    parent,
    quoted,
    quoteState: quoted ? (quoted.local ? "accepted" : "pending") : null,
    mentioned: composed.mentionedAccountIds.filter((m) => m !== account.id),
    localMentioned: composed.localAccountIds,
    tagNames: composed.tagNames,
    createdAt: new Date(),
    interactionPolicy,
  };
}
