/**
 * Forgetting our copies of remote images that their owner replaced: the
 * row's cache columns are cleared in the writer's transaction and the old
 * files recorded for deletion once it commits (actors/media/discarded.ts).
 */
import type { Executor } from "../../../db/connection.ts";
import type { accounts } from "../../../db/schema/mod.ts";
import { discardMediaFiles } from "../discarded.ts";

/**
 * The columns that forget our copy of an avatar or header whose remote URL
 * changed (the copy's file goes once the transaction commits; the media
 * proxy fetches the new image when it is first shown).
 */
export async function replacedProfileCopies(
  tx: Executor,
  existing: typeof accounts.$inferSelect,
  next: { avatarRemoteUrl?: string | null; headerRemoteUrl?: string | null },
): Promise<Partial<typeof accounts.$inferInsert>> {
  const out: Partial<typeof accounts.$inferInsert> = {};
  const stale: (string | null)[] = [];
  if ((next.avatarRemoteUrl ?? null) !== existing.avatarRemoteUrl) {
    stale.push(existing.avatarKey);
    Object.assign(out, {
      avatarKey: null,
      avatarFileSize: null,
      avatarCachedAt: null,
      avatarFailedAt: null,
    });
  }
  if ((next.headerRemoteUrl ?? null) !== existing.headerRemoteUrl) {
    stale.push(existing.headerKey);
    Object.assign(out, {
      headerKey: null,
      headerFileSize: null,
      headerCachedAt: null,
      headerFailedAt: null,
    });
  }
  await discardMediaFiles(tx, stale);
  return out;
}
