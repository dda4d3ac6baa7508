/**
 * Checking a member's consent to be in a remote collection (Mastodon's
 * VerifyFeaturedItemService), as the `verify_featured_item` job: the
 * member's server must serve the stamp the item names (a
 * FeatureAuthorization for this collection and this member), fetched signed
 * by the instance actor. Then the member's actor is stored and the item
 * accepted; a stamp that is gone (404, 410) or speaks of another collection
 * or member rejects it; a server that could not answer is asked again later
 * (30 s, doubling, to 10 minutes, a few times), with a fetch budget of its
 * own each run. An accepted item is checked again when its collection is
 * read and the last check is over a day old (`ifStale`).
 *
 * Items of our own members never come here: our own consent is in our rows
 * (actors/collections/remote.ts).
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import {
  acceptVerifiedItem,
  itemToVerify,
  rejectUnverifiedItem,
} from "../../actors/collections/remote.ts";
import { type Job, recordJob } from "../../actors/outbox/jobs.ts";
import { readFeatureAuthorization, vocabularyOf } from "../dialects/featured_collections.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { fetchRawDocument } from "../fetch/raw_document.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { accountForActorUri } from "./accounts.ts";

const logger = getLogger(["rookery", "federation", "collections"]);

/** How long an accepted item's check holds before its collection's next reading checks again. */
export const VERIFIED_FOR_MS = 24 * 60 * 60 * 1000;
/** Tries after the first when the member's server cannot be reached. */
const RETRIES = 5;
const FIRST_RETRY_MS = 30_000;
const LAST_RETRY_MS = 10 * 60_000;

type VerifyJob = Extract<Job, { job: "verify_featured_item" }>;

/** Queues the check of `itemId` (never throws: the next reading of the collection asks again). */
export async function requestItemVerification(
  app: AppContext,
  itemId: string,
  options: { ifStale?: boolean; attempt?: number; delayMs?: number } = {},
): Promise<void> {
  try {
    await recordJob(app.database.db, {
      job: "verify_featured_item",
      itemId,
      ...(options.attempt ? { attempt: options.attempt } : {}),
      ...(options.ifStale ? { ifStale: true } : {}),
    }, { delayMs: options.delayMs });
  } catch (error) {
    logger.warn("Could not queue the check of item {itemId}: {error}", { itemId, error });
  }
}

/** Runs one check (the job handler, jobs/handlers.ts). */
export async function verifyFeaturedItem(app: AppContext, job: VerifyJob): Promise<void> {
  const item = await itemToVerify(app, job.itemId);
  if (!item || (item.state !== "pending" && item.state !== "accepted")) return;
  const checked = item.approvalLastVerifiedAt?.getTime() ?? 0;
  if (job.ifStale && item.state === "accepted" && Date.now() - checked < VERIFIED_FOR_MS) return;
  const budget = FetchBudget.of(app);
  const fetched = await fetchRawDocument(app, item.approvalUri, { budget });
  if (!fetched.json) {
    if (fetched.failure === "gone") await rejectUnverifiedItem(app, item.itemId);
    if (fetched.failure === "later") await retry(app, job);
    return;
  }
  const stamp = readFeatureAuthorization(fetched.json, vocabularyOf(fetched.json));
  const vouches = stamp != null && stamp.id === item.approvalUri &&
    stamp.interactingObject === item.collectionUri &&
    stamp.interactionTarget === item.objectUri &&
    sameOrigin(item.approvalUri, item.objectUri);
  if (!vouches) {
    logger.info("Rejected item {itemId}: its stamp {stamp} does not vouch for it.", {
      itemId: item.itemId,
      stamp: item.approvalUri,
    });
    await rejectUnverifiedItem(app, item.itemId);
    return;
  }
  const member = await accountForActorUri(instanceContext(app), new URL(item.objectUri), budget)
    .catch(() => null);
  if (!member) {
    if (budget.refusals > 0) await retry(app, job);
    return;
  }
  if (member.domain == null || member.suspendedAt || member.deletedAt) return;
  await acceptVerifiedItem(app, item.itemId, member.id);
}

/** Queues the next try, with a longer wait each time; gives up after {@link RETRIES}. */
async function retry(app: AppContext, job: VerifyJob): Promise<void> {
  const attempt = (job.attempt ?? 0) + 1;
  if (attempt > RETRIES) return;
  const delayMs = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), LAST_RETRY_MS);
  await requestItemVerification(app, job.itemId, { ...job, attempt, delayMs });
}
