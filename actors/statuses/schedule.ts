/**
 * Scheduling a status: POST /api/v1/statuses with `scheduled_at`.
 *
 * The input is checked like an immediate post (text, media, poll, language)
 * and stored in `scheduled_statuses.params` in exactly the shape the API
 * returns as ScheduledStatus `params`; the media are reserved for it
 * (`scheduled_status_id`). Publishing when the time comes belongs to the
 * scheduler, which turns `params` back into a post with
 * {@link inputFromScheduledParams} and calls createStatus.
 */
import { builtInDefaults, checkPolicy, type PolicyInput } from "../../model/interaction_policy.ts";
import {
  checkScheduleLimits,
  MIN_SCHEDULE_AHEAD_MS,
  SCHEDULED_TOO_EARLY,
} from "./schedule_limits.ts";

export { MIN_SCHEDULE_AHEAD_MS, SCHEDULED_TOO_EARLY } from "./schedule_limits.ts";
import { and, eq, inArray, lt } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { idempotencyKeys, mediaAttachments, scheduledStatuses } from "../../db/schema/mod.ts";
import type { LocalStatusInput } from "./create.ts";
import { IDEMPOTENCY_TTL_MS } from "./create.ts";
import { invalid } from "./errors.ts";
import { ownMedia } from "./rows.ts";
import { checkStatusInput } from "./validation.ts";
import type { Visibility } from "../../model/visibility.ts";
import { parseText } from "../formatting/parsed_text.ts";

export type ScheduledStatusRow = typeof scheduledStatuses.$inferSelect;

/** The stored and answered `params` of a scheduled status (unset values are null). */
export interface ScheduledParams {
  text: string;
  poll: { options: string[]; expires_in: string; multiple: boolean; hide_totals: boolean } | null;
  media_ids: string[] | null;
  sensitive: boolean | null;
  visibility: Visibility | null;
  idempotency: string | null;
  scheduled_at: null;
  spoiler_text: string | null;
  /** Our ids are 64-bit: kept as a string so no digit is lost. */
  application_id: string | null;
  in_reply_to_id: string | null;
  language: string | null;
  quoted_status_id: string | null;
  quote_approval_policy: string | null;
  /** Who may interact with it (issue 34), as the client asked; applied at publication. */
  interaction_policy?: PolicyInput | null;
  with_rate_limit: boolean;
}

/** Refuses times less than five minutes ahead. */
export function checkScheduledAt(at: Date, now = new Date()): void {
  if (!(at.getTime() - now.getTime() >= MIN_SCHEDULE_AHEAD_MS)) {
    throw invalid(SCHEDULED_TOO_EARLY);
  }
}

/**
 * Stores a status to publish at `scheduledAt`. With an idempotency key seen
 * within the hour, answers the scheduled status created the first time.
 */
export async function scheduleStatus(
  ctx: AppContext,
  input: LocalStatusInput,
  scheduledAt: Date,
): Promise<ScheduledStatusRow> {
  const { config } = ctx;
  const db = ctx.database.db;
  checkScheduledAt(scheduledAt);
  const mediaIds = input.mediaIds ?? [];
  const language = checkStatusInput(config, {
    text: parseText(input.text),
    spoilerText: input.spoilerText ?? "",
    mediaCount: mediaIds.length,
    poll: input.poll,
    hasPoll: input.poll != null,
    language: input.language,
  }) ?? null;
  if (input.interactionPolicy && input.visibility) {
    // Refused now rather than at publication (the rest is checked then, with the defaults).
    const checked = checkPolicy(
      input.interactionPolicy,
      input.visibility,
      builtInDefaults(input.visibility, "public"),
    );
    if ("problem" in checked) throw invalid(`Interaction policy ${checked.problem}`);
  }
  const params: ScheduledParams = {
    text: input.text,
    poll: input.poll
      ? {
        options: input.poll.options,
        expires_in: String(input.poll.expiresIn),
        multiple: input.poll.multiple,
        hide_totals: input.poll.hideTotals,
      }
      : null,
    media_ids: mediaIds.length ? mediaIds : null,
    sensitive: input.sensitive ?? null,
    visibility: input.visibility ?? null,
    idempotency: input.idempotencyKey ?? null,
    scheduled_at: null,
    spoiler_text: input.spoilerText ?? null,
    application_id: input.applicationId ?? null,
    in_reply_to_id: input.inReplyToId ?? null,
    language,
    quoted_status_id: input.quotedStatusId ?? null,
    quote_approval_policy: input.quoteApprovalPolicy ?? null,
    interaction_policy: input.interactionPolicy ?? null,
    with_rate_limit: false,
  };
  return await db.transaction(async (tx) => {
    const id = newId();
    if (input.idempotencyKey) {
      const key = input.idempotencyKey;
      const mine = and(
        eq(idempotencyKeys.accountId, input.accountId),
        eq(idempotencyKeys.key, key),
      );
      await tx.delete(idempotencyKeys).where(and(
        mine,
        lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS)),
      ));
      const inserted = await tx.insert(idempotencyKeys)
        .values({ accountId: input.accountId, key, scheduledStatusId: id })
        .onConflictDoNothing().returning({ key: idempotencyKeys.key });
      if (!inserted.length) {
        const [earlier] = await tx.select().from(idempotencyKeys).where(mine);
        if (earlier?.scheduledStatusId) {
          const [row] = await tx.select().from(scheduledStatuses)
            .where(eq(scheduledStatuses.id, earlier.scheduledStatusId));
          if (row) return row;
        }
        throw invalid("Idempotency key was already used for another request");
      }
    }
    await checkScheduleLimits(tx, input.accountId, scheduledAt);
    await ownMedia(tx, input.accountId, mediaIds);
    const [row] = await tx.insert(scheduledStatuses).values({
      id,
      accountId: input.accountId,
      scheduledAt,
      params: params as unknown as Record<string, unknown>,
    }).returning();
    if (mediaIds.length) {
      await tx.update(mediaAttachments).set({ scheduledStatusId: id })
        .where(inArray(mediaAttachments.id, mediaIds));
    }
    return row;
  });
}

/**
 * The post a scheduled status stands for, for the scheduler to hand to
 * createStatus when its time comes (the reserved media come along).
 */
export function inputFromScheduledParams(
  scheduled: Pick<ScheduledStatusRow, "id" | "accountId" | "params">,
): LocalStatusInput {
  const p = scheduled.params as Partial<ScheduledParams>;
  return {
    local: true,
    accountId: scheduled.accountId,
    scheduledStatusId: scheduled.id,
    text: p.text ?? "",
    applicationId: p.application_id != null ? String(p.application_id) : null,
    mediaIds: p.media_ids ?? [],
    poll: p.poll
      ? {
        options: p.poll.options,
        expiresIn: Number(p.poll.expires_in),
        multiple: p.poll.multiple ?? false,
        hideTotals: p.poll.hide_totals ?? false,
      }
      : null,
    inReplyToId: p.in_reply_to_id ?? null,
    sensitive: p.sensitive ?? undefined,
    spoilerText: p.spoiler_text ?? undefined,
    visibility: p.visibility ?? undefined,
    language: p.language ?? undefined,
    quotedStatusId: p.quoted_status_id ?? null,
    quoteApprovalPolicy: (p.quote_approval_policy ?? undefined) as
      | LocalStatusInput["quoteApprovalPolicy"]
      | undefined,
    interactionPolicy: p.interaction_policy ?? undefined,
  };
}
