/**
 * A user's default interaction policies (GoToSocial's
 * /api/v1/interaction_policies/defaults; issue 34): who may favourite,
 * reply to, boost and quote their new posts, per visibility. The one writer
 * of `users.settings.interaction_policies`.
 *
 * As GoToSocial's PATCH: a visibility left out (or null) goes back to the
 * built-in defaults; inside a visibility, a sub-policy left out is the
 * built-in default (`can_quote`: the user's Mastodon quote policy). The
 * Mastodon quote policy (`source[quote_policy]`) and the public `can_quote`
 * stay in step: setting the public `can_quote` here sets the quote word.
 */
import { eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { users } from "../../db/schema/mod.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import {
  builtInDefaults,
  checkPolicy,
  type PolicyInput,
  storedDifference,
  type StoredPolicy,
  toMastodonQuoteWord,
  type Visibility,
} from "../../model/interaction_policy.ts";
import { resolveSettings, type UserSettings } from "../../model/user_settings.ts";

/** The defaults of each visibility, every sub-policy stated. */
export type PolicyDefaults = Record<Visibility, Required<StoredPolicy>>;

/** What a client sends: a policy per visibility; absent or null resets it. */
export type DefaultsInput = Partial<Record<Visibility, PolicyInput | null>>;

const VISIBILITIES: readonly Visibility[] = ["direct", "private", "unlisted", "public"];

async function userSettings(db: Executor, accountId: string, lock = false) {
  const query = db.select({ settings: users.settings }).from(users).where(
    eq(users.accountId, accountId),
  );
  const [row] = lock ? await query.for("update").limit(1) : await query.limit(1);
  if (!row) throw new NotFoundError();
  return (row.settings ?? {}) as UserSettings & Record<string, unknown>;
}

/** The user's defaults, per visibility. */
export async function interactionDefaults(
  db: Executor,
  accountId: string,
): Promise<PolicyDefaults> {
  return resolveSettings(await userSettings(db, accountId), { locked: false }).interactionPolicies;
}

/**
 * Replaces the user's defaults (see the module notes) and returns them.
 * Nothing is written when one visibility's policy is refused
 * (ValidationError, "Interaction policy public.can_reply…").
 */
export async function setInteractionDefaults(
  db: Executor,
  accountId: string,
  input: DefaultsInput,
): Promise<PolicyDefaults> {
  const settings = await userSettings(db, accountId, true);
  const quoteWord = resolveSettings(settings, { locked: false }).defaultQuotePolicy;
  const stored: Partial<Record<Visibility, StoredPolicy>> = {};
  let nextQuoteWord = quoteWord;
  for (const visibility of VISIBILITIES) {
    const given = input[visibility];
    if (given == null) continue;
    const checked = checkPolicy(given, visibility, builtInDefaults(visibility, quoteWord));
    if ("problem" in checked) {
      throw new ValidationError({
        interaction_policy: [{
          error: "ERR_INVALID",
          description: `${visibility}.${checked.problem}`,
        }],
      });
    }
    // The quote word stands for an unset can_quote: store it only when set here.
    const difference = storedDifference(checked.policy, visibility, quoteWord) ?? {};
    if (!given.can_quote) delete difference.can_quote;
    else if (visibility === "public") nextQuoteWord = toMastodonQuoteWord(checked.policy.can_quote);
    if (Object.keys(difference).length > 0) stored[visibility] = difference;
  }
  const next = { ...settings, interaction_policies: stored, default_quote_policy: nextQuoteWord };
  await db.update(users).set({ settings: next }).where(eq(users.accountId, accountId));
  return resolveSettings(next, { locked: false }).interactionPolicies;
}

/**
 * The settings after the Mastodon quote policy changed (update_credentials'
 * `source[quote_policy]`): the word now stands for the quotes of public and
 * unlisted posts, so a `can_quote` set through the defaults API for them goes.
 */
export function quoteWordChanged(settings: UserSettings): void {
  const policies = settings.interaction_policies;
  if (!policies) return;
  for (const visibility of ["public", "unlisted"] as const) {
    const policy = policies[visibility];
    if (policy?.can_quote) {
      delete policy.can_quote;
      if (Object.keys(policy).length === 0) delete policies[visibility];
    }
  }
}
