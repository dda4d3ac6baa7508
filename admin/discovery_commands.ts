/**
 * The `trends` and `suggestions` admin commands: moderators' review of
 * trending items (TRENDS_REVIEW) and the accounts staff feature in follow
 * suggestions, until the admin API offers both.
 */
import type { Command } from "./command.ts";
import { formatDate, printable, table } from "./format.ts";
import {
  parseTrendKind,
  pendingTrends,
  reviewTrend,
  type TrendReviewState,
} from "../actors/discovery/trend_review.ts";
import {
  featureInSuggestions,
  listFeaturedInSuggestions,
  unfeatureInSuggestions,
} from "../actors/discovery/suggestions.ts";

function reviewCommand(state: TrendReviewState, verb: string): Command {
  return {
    usage: `trends ${verb} <tag|status|link> <name, status id or URL>`,
    positionals: ["kind", "target"],
    options: {},
    async run({ db }, args) {
      const kind = parseTrendKind(args.positionals.kind);
      const item = await reviewTrend(db, kind, args.positionals.target, state);
      return `${state === "allowed" ? "Allowed" : "Rejected"} ${kind} ${printable(item.label)}.`;
    },
  };
}

/** The commands, merged into the command table. */
export const DISCOVERY_COMMANDS: Record<string, Command> = {
  "trends allow": reviewCommand("allowed", "allow"),
  "trends reject": reviewCommand("rejected", "reject"),
  "trends pending": {
    usage: "trends pending [--json]",
    positionals: [],
    options: { json: "boolean" },
    async run({ db }, args) {
      const pending = await pendingTrends(db);
      if (args.flags.has("json")) {
        return JSON.stringify(
          pending.map((p) => ({
            kind: p.kind,
            id: p.targetId,
            target: p.label,
            accounts: p.accounts,
            score: p.score,
          })),
          null,
          2,
        );
      }
      if (!pending.length) return { stdout: "", stderr: "Nothing trends without a review." };
      return table(
        ["KIND", "ID", "ACCOUNTS", "SCORE", "TARGET"],
        pending.map((p) => [
          p.kind,
          p.targetId,
          String(p.accounts),
          p.score.toFixed(2),
          p.label,
        ]),
      );
    },
  },
  "suggestions feature": {
    usage: "suggestions feature <username or user@domain>",
    positionals: ["account"],
    options: {},
    async run({ db }, args) {
      const { handle, changed } = await featureInSuggestions(db, args.positionals.account);
      return changed
        ? `Featured ${printable(handle)} in follow suggestions.`
        : `${printable(handle)} was already featured.`;
    },
  },
  "suggestions unfeature": {
    usage: "suggestions unfeature <username or user@domain>",
    positionals: ["account"],
    options: {},
    async run({ db }, args) {
      const { handle, changed } = await unfeatureInSuggestions(db, args.positionals.account);
      return changed
        ? `${printable(handle)} is no longer featured in follow suggestions.`
        : `${printable(handle)} was not featured.`;
    },
  },
  "suggestions list": {
    usage: "suggestions list",
    positionals: [],
    options: {},
    async run({ db }) {
      const rows = await listFeaturedInSuggestions(db);
      if (!rows.length) return { stdout: "", stderr: "No account is featured." };
      return table(
        ["ACCOUNT", "DISCOVERABLE", "FEATURED"],
        rows.map((r) => [r.handle, r.discoverable ? "yes" : "no", formatDate(r.createdAt)]),
      );
    },
  },
};
