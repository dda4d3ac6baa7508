/**
 * The Suggestion entity (Mastodon 4.3+): `sources` says why an account is
 * suggested; `source` is the older single reason clients before 4.3 read,
 * mapped as Mastodon maps it (featured → staff; most followed and most
 * interactions → global; the viewer's own graph → past_interactions).
 */
import type { MediaUrls } from "../../actors/media/urls.ts";
import type { Executor } from "../../db/connection.ts";
import type { SuggestionRow, SuggestionSource } from "../../db/queries/suggestions.ts";
import { type Account, loadAccountEntities } from "./account.ts";

/** The Suggestion entity. */
export interface SuggestionJson {
  source: "staff" | "global" | "past_interactions";
  sources: SuggestionSource[];
  account: Account;
}

function legacySource(sources: readonly SuggestionSource[]): SuggestionJson["source"] {
  if (sources.includes("featured")) return "staff";
  if (sources.includes("most_followed") || sources.includes("most_interactions")) return "global";
  return "past_interactions";
}

/** Serializes suggestions in order, with their accounts loaded in one batch. */
export async function serializeSuggestions(
  db: Executor,
  urls: MediaUrls,
  rows: readonly SuggestionRow[],
): Promise<SuggestionJson[]> {
  const accounts = await loadAccountEntities(db, urls, rows.map((r) => r.accountId));
  const byId = new Map(accounts.map((a) => [a.id, a]));
  return rows.flatMap((r) => {
    const account = byId.get(r.accountId);
    return account ? [{ source: legacySource(r.sources), sources: r.sources, account }] : [];
  });
}
