/**
 * Default interaction policies (GoToSocial's client API, issue 34):
 * - GET /api/v1/interaction_policies/defaults (read:accounts) → the
 *   InteractionPolicy of new posts of each visibility;
 * - PATCH /api/v1/interaction_policies/defaults (write:accounts) → the
 *   same after the change: a visibility left out or null goes back to the
 *   built-in defaults (GoToSocial's semantics), a refused policy is a 422
 *   and nothing is written.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { requireUser } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { interactionPolicyJson, readInteractionPolicy } from "../entities/interaction_policy.ts";
import {
  type DefaultsInput,
  interactionDefaults,
  type PolicyDefaults,
  setInteractionDefaults,
} from "../../actors/accounts/interaction_defaults.ts";
import type { Visibility } from "../../model/interaction_policy.ts";

const VISIBILITIES: readonly Visibility[] = ["direct", "private", "unlisted", "public"];

/** The defaults as the API shows them: each visibility's InteractionPolicy, without `me`. */
function defaultsJson(defaults: PolicyDefaults) {
  return Object.fromEntries(VISIBILITIES.map((visibility) => [
    visibility,
    interactionPolicyJson({
      local: true,
      visibility,
      interactionPolicy: defaults[visibility],
      quoteApprovalPolicy: "nobody",
      pendingApproval: false,
    }, null),
  ]));
}

function me(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

/** The default interaction policy routes, mounted at the root of the app. */
export function interactionPolicyRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const path = "/api/v1/interaction_policies/defaults";

  app.get(path, requireUser("read:accounts"), async (c) => {
    return c.json(defaultsJson(await interactionDefaults(c.get("ctx").database.db, me(c))));
  });

  app.patch(path, requireUser("write:accounts"), async (c) => {
    const p = await params(c);
    const input: DefaultsInput = {};
    for (const visibility of VISIBILITIES) input[visibility] = readInteractionPolicy(p, visibility);
    const db = c.get("ctx").database.db;
    const saved = await withValidation(() =>
      db.transaction((tx) => setInteractionDefaults(tx, me(c), input))
    );
    return c.json(defaultsJson(saved));
  });
  return app;
}
