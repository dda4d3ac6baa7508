/**
 * The `email_digest` job (Mastodon 4.7 newsletters): mails an account's new
 * public posts to its confirmed e-mail subscribers, once the digest is due
 * (actors/email_subscriptions/digest.ts).
 * - The gates are checked again (actors/email_subscriptions/gates.ts): none
 *   holding, or nothing new → the pending digest is cleared, nothing sent.
 * - New posts: public, not boosts, not replies to others, not deleted, after
 *   the last one mailed (first digest: after the earliest confirmation);
 *   newest first, at most 20 listed, then "and N more".
 * - Each subscriber gets only the posts made after it confirmed, read in
 *   pages of 100 (keyset by id); then the digest records what it sent.
 * A post made while sending waits for the next digest. A failed mail is
 * logged and the others go on (the address may come back next time).
 */
import { and, asc, eq, gt, isNotNull, isNull, or, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { emailDigests, emailSubscriptions, statuses } from "../db/schema/mod.ts";
import {
  type SubscribableAccount,
  subscribableAccount,
} from "../actors/email_subscriptions/gates.ts";
import { listHeaders, UNSUBSCRIBE_PATH } from "../actors/email_subscriptions/mails.ts";
import { signLinkToken } from "../actors/email_subscriptions/tokens.ts";
import { requestEmailDigest } from "../actors/email_subscriptions/digest.ts";
import { htmlToText } from "../actors/formatting/html_to_text.ts";
import { sendMail } from "../actors/net/mailer.ts";

const logger = getLogger(["rookery", "mail", "digest"]);

/** Posts listed in one mail; more are counted. */
export const DIGEST_MAX_POSTS = 20;
/** Characters of a post's text in the mail. */
const TEXT_MAX = 500;
/** Subscribers read at a time. */
const PAGE = 100;

interface DigestPost {
  id: string;
  createdAt: Date;
  url: string | null;
  content: string;
  spoilerText: string;
}

async function newPosts(ctx: AppContext, accountId: string, after: string | null, since: Date) {
  return await ctx.database.db.select({
    id: statuses.id,
    createdAt: statuses.createdAt,
    url: statuses.url,
    content: statuses.content,
    spoilerText: statuses.spoilerText,
  }).from(statuses).where(and(
    eq(statuses.accountId, accountId),
    eq(statuses.visibility, "public"),
    isNull(statuses.reblogOfId),
    isNull(statuses.deletedAt),
    or(isNull(statuses.inReplyToAccountId), eq(statuses.inReplyToAccountId, accountId)),
    after ? gt(statuses.id, after) : gt(statuses.createdAt, since),
  )).orderBy(sql`${statuses.id} DESC`);
}

function postLines(ctx: AppContext, account: SubscribableAccount, post: DigestPost): string[] {
  const text = [...htmlToText(post.content)].slice(0, TEXT_MAX).join("");
  const url = post.url ?? `${ctx.config.origin}/@${account.username}/${post.id}`;
  return [
    post.createdAt.toISOString().slice(0, 16).replace("T", " ") + " UTC",
    post.spoilerText ? `Content warning: ${post.spoilerText}` : text,
    url,
    "",
  ];
}

async function mailOne(
  ctx: AppContext,
  account: SubscribableAccount,
  subscriber: { id: string; email: string },
  posts: DigestPost[],
): Promise<void> {
  const name = account.displayName || account.username;
  const token = await signLinkToken(ctx.database.db, subscriber.id, "unsubscribe");
  const unsubscribeUrl = `${ctx.config.origin}${UNSUBSCRIBE_PATH}?token=${token}`;
  const listed = posts.slice(0, DIGEST_MAX_POSTS);
  const more = posts.length - listed.length;
  const profile = `${ctx.config.origin}/@${account.username}`;
  await sendMail(ctx, {
    to: subscriber.email,
    subject: posts.length === 1
      ? `New post from ${name}`
      : `${posts.length} new posts from ${name}`,
    text: [
      ...listed.flatMap((p) => postLines(ctx, account, p)),
      ...(more > 0 ? [`and ${more} more on ${profile}`, ""] : []),
      `You get this because you subscribed to the posts of @${account.username}@${ctx.config.domain}.`,
      `To unsubscribe: ${unsubscribeUrl}`,
      "",
    ].join("\n"),
    headers: { ...listHeaders(ctx, account, unsubscribeUrl), Precedence: "bulk" },
  });
}

async function clearDue(ctx: AppContext, accountId: string): Promise<void> {
  await ctx.database.db.update(emailDigests).set({ dueAt: null })
    .where(eq(emailDigests.accountId, accountId));
}

/** Sends the account's digest to every confirmed subscriber. */
export async function runEmailDigest(ctx: AppContext, accountId: string): Promise<void> {
  const db = ctx.database.db;
  const account = await subscribableAccount(db, ctx.config, accountId);
  const [digest] = await db.select().from(emailDigests)
    .where(eq(emailDigests.accountId, accountId)).limit(1);
  if (!account || !digest) return await clearDue(ctx, accountId);
  const [first] = await db.select({ at: sql<Date | null>`min(${emailSubscriptions.confirmedAt})` })
    .from(emailSubscriptions).where(and(
      eq(emailSubscriptions.accountId, accountId),
      isNotNull(emailSubscriptions.confirmedAt),
    ));
  const since = first?.at ? new Date(first.at) : new Date();
  const posts = await newPosts(ctx, accountId, digest.lastStatusId, since);
  if (posts.length === 0) return await clearDue(ctx, accountId);
  let cursor = "0";
  for (;;) {
    const page = await db.select({
      id: emailSubscriptions.id,
      email: emailSubscriptions.email,
      confirmedAt: emailSubscriptions.confirmedAt,
    }).from(emailSubscriptions).where(and(
      eq(emailSubscriptions.accountId, accountId),
      isNotNull(emailSubscriptions.confirmedAt),
      gt(emailSubscriptions.id, cursor),
    )).orderBy(asc(emailSubscriptions.id)).limit(PAGE);
    for (const subscriber of page) {
      const theirs = posts.filter((p) => p.createdAt > subscriber.confirmedAt!);
      if (theirs.length === 0) continue;
      try {
        await mailOne(ctx, account, subscriber, theirs);
      } catch (error) {
        logger.warn("Could not mail the digest of {accountId} to subscription {id}: {error}", {
          accountId,
          id: subscriber.id,
          error,
        });
      }
    }
    if (page.length < PAGE) break;
    cursor = page[page.length - 1].id;
  }
  await db.update(emailDigests).set({
    lastStatusId: posts[0].id,
    lastSentAt: new Date(),
    dueAt: null,
  }).where(eq(emailDigests.accountId, accountId));
  // A post made while sending found the digest pending: schedule the next one for it.
  const [later] = await newPosts(ctx, accountId, posts[0].id, since);
  if (later) {
    await db.transaction(async (tx) => {
      await requestEmailDigest(tx, ctx.config.emailSubscriptions, {
        accountId,
        local: true,
        visibility: "public",
        reblogOfId: null,
        inReplyToAccountId: null,
      });
    });
  }
}
