/**
 * The job that redirects the local followers of a moved account
 * (actors/accounts/moves.ts): one batch per job, then the next batch as a new job
 * with the same ordering key. The first job carries blocks and mutes of the
 * origin over to the target. Many followers make many small jobs, never
 * one long transaction or one job that a restart would lose halfway.
 */
import type { AppContext } from "../context.ts";
import { carryBlocksAndMutesOver, redirectFollowerBatch } from "../actors/accounts/moves.ts";
import { type Job, recordJob } from "../actors/outbox/jobs.ts";

type MoveFollowersJob = Extract<Job, { job: "move_followers" }>;

/** Runs one batch and queues the next when there may be more. */
export async function runMoveFollowers(ctx: AppContext, job: MoveFollowersJob): Promise<void> {
  // The first job also carries blocks and mutes over (a move is no way around them).
  if (job.afterId == null) await carryBlocksAndMutesOver(ctx, job.originId, job.targetId);
  const last = await redirectFollowerBatch(ctx, job.originId, job.targetId, job.afterId);
  if (last == null) return;
  await recordJob(ctx.database.db, { ...job, afterId: last });
}
