/**
 * /settings/interactions: who may reply to, boost, favourite and quote the
 * signed-in user's new posts, per visibility, as presets (issue 34). A
 * policy set through the API that is no preset shows as "Custom (set by an
 * app)" and is kept when the form is saved with it. Saving and resetting go
 * through the defaults command the API uses.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { readPermittedObject, readString } from "../../../api/readers.ts";
import {
  type DefaultsInput,
  interactionDefaults,
  type PolicyDefaults,
  setInteractionDefaults,
} from "../../../actors/accounts/interaction_defaults.ts";
import {
  feasible,
  type Interaction,
  normalize,
  type PolicyRules,
  type SubPolicyKey,
  type Visibility,
} from "../../../model/interaction_policy.ts";
import { InteractionsPage, type VisibilityChoices } from "../../pages/settings/interactions.tsx";
import { sendAccountPage } from "../auth/page.ts";
import { settingsSession, userPage } from "./session.ts";

const PAGE = "/settings/interactions";
const CUSTOM = "custom";

/** The presets: a word, its label, its rules. */
const PRESETS: { value: string; label: string; rules: PolicyRules }[] = [
  { value: "anyone", label: "Anyone", rules: { automatic: ["public"], manual: [] } },
  {
    value: "followers_ask",
    label: "Followers; anyone else with my approval",
    rules: { automatic: ["followers"], manual: ["public"] },
  },
  { value: "ask", label: "Anyone, with my approval", rules: { automatic: [], manual: ["public"] } },
  { value: "followers", label: "Followers", rules: { automatic: ["followers"], manual: [] } },
  { value: "following", label: "People I follow", rules: { automatic: ["following"], manual: [] } },
  {
    value: "followers_following",
    label: "Followers and people I follow",
    rules: { automatic: ["followers", "following"], manual: [] },
  },
  {
    value: "only_me",
    label: "Only me",
    rules: { automatic: [], manual: [] },
  },
];

/**
 * A preset's rules for one interaction: those a post mentions may reply to
 * it and favourite it (they see it) unless anyone may, as the built-in
 * policies have it.
 */
function rulesOf(preset: PolicyRules, interaction: Interaction): PolicyRules {
  const mentionedToo = (interaction === "reply" || interaction === "favourite") &&
    !preset.automatic.includes("public");
  return normalize(interaction, {
    automatic: mentionedToo ? [...preset.automatic, "mentioned"] : preset.automatic,
    manual: preset.manual,
  });
}
/** Quotes follow Mastodon's three words: automatic presets only. */
const QUOTE_PRESETS = new Set(["anyone", "followers", "only_me"]);

const GROUPS: { visibility: Visibility; legend: string }[] = [
  { visibility: "public", legend: "Public posts" },
  { visibility: "unlisted", legend: "Unlisted posts" },
  { visibility: "private", legend: "Followers-only posts" },
  { visibility: "direct", legend: "Direct messages" },
];
const SUBS: { key: SubPolicyKey; label: string; interaction: Interaction }[] = [
  { key: "can_reply", label: "Who may reply", interaction: "reply" },
  { key: "can_reblog", label: "Who may boost", interaction: "reblog" },
  { key: "can_favourite", label: "Who may favourite", interaction: "favourite" },
  { key: "can_quote", label: "Who may quote", interaction: "quote" },
];

/** The presets offered for one select (only those the visibility allows). */
function presetsFor(visibility: Visibility, sub: (typeof SUBS)[number]) {
  return PRESETS.filter((p) =>
    (sub.interaction !== "quote" || QUOTE_PRESETS.has(p.value)) &&
    [...p.rules.automatic, ...p.rules.manual].every((v) => feasible(v, visibility))
  );
}

function same(a: PolicyRules, b: PolicyRules): boolean {
  const key = (r: PolicyRules) => JSON.stringify([[...r.automatic].sort(), [...r.manual].sort()]);
  return key(a) === key(b);
}

function groupsOf(defaults: PolicyDefaults): VisibilityChoices[] {
  return GROUPS.map(({ visibility, legend }) => ({
    legend,
    choices: SUBS.filter((s) =>
      s.interaction !== "quote" || visibility === "public" || visibility === "unlisted"
    )
      .map((sub) => {
        const offered = presetsFor(visibility, sub);
        const current = offered.find((p) =>
          same(rulesOf(p.rules, sub.interaction), defaults[visibility][sub.key])
        )?.value ?? CUSTOM;
        const options = offered.map((p) => ({ value: p.value, label: p.label }));
        if (current === CUSTOM) {
          options.push({ value: CUSTOM, label: "Custom (set by an app)" });
        }
        return { name: `${visibility}[${sub.key}]`, label: sub.label, options, current };
      }),
  }));
}

/** The defaults the form asks for: each preset's rules; custom (or anything else) keeps the current. */
async function formInput(c: Context<ApiEnv>, defaults: PolicyDefaults): Promise<DefaultsInput> {
  const p = await params(c);
  const input: DefaultsInput = {};
  for (const { visibility } of GROUPS) {
    const given = readPermittedObject(p, visibility) ?? {};
    const policy: NonNullable<DefaultsInput[Visibility]> = {};
    for (const sub of SUBS) {
      const preset = presetsFor(visibility, sub).find((x) =>
        x.value === readString(given, sub.key)
      );
      policy[sub.key] = preset
        ? rulesOf(preset.rules, sub.interaction)
        : defaults[visibility][sub.key];
    }
    if (visibility === "private" || visibility === "direct") delete policy.can_quote;
    input[visibility] = policy;
  }
  return input;
}

export function interactionSettingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.use(PAGE, userPage());
  app.use(`${PAGE}/*`, userPage());

  app.get(PAGE, async (c) => {
    const session = settingsSession(c);
    const defaults = await interactionDefaults(c.get("ctx").database.db, session.user.accountId);
    return await sendAccountPage(
      c,
      <InteractionsPage
        instanceTitle={c.get("ctx").config.instance.title}
        viewer={{ username: session.user.username, csrfToken: session.csrfToken }}
        groups={groupsOf(defaults)}
        notice={c.req.query("notice") === "saved" ? "Saved." : undefined}
      />,
    );
  });

  app.post(PAGE, async (c) => {
    const accountId = settingsSession(c).user.accountId;
    const db = c.get("ctx").database.db;
    await db.transaction(async (tx) => {
      const input = await formInput(c, await interactionDefaults(tx, accountId));
      await setInteractionDefaults(tx, accountId, input);
    });
    return c.redirect(`${PAGE}?notice=saved`, 303);
  });

  app.post(`${PAGE}/reset`, async (c) => {
    await setInteractionDefaults(c.get("ctx").database.db, settingsSession(c).user.accountId, {});
    return c.redirect(`${PAGE}?notice=saved`, 303);
  });
  return app;
}
