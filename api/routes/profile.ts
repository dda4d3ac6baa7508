/**
 * The token owner's profile as they edit it (Mastodon 4.6):
 * - GET /api/v1/profile (profile or read:accounts) → Profile
 * - PATCH, PUT /api/v1/profile (write:accounts) → Profile: display_name,
 *   note, avatar, avatar_description, header, header_description, locked,
 *   bot, discoverable, hide_collections, indexable, show_media,
 *   show_media_replies, show_featured, attribution_domains[],
 *   fields_attributes — the same command, checks and actor Update as
 *   update_credentials (its posting defaults, `source`, are not taken here).
 * The image removals (`DELETE /api/v1/profile/avatar|header`) stay beside
 * update_credentials (accounts_own.ts): they answer a CredentialAccount.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { requireUser } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { loadProfile } from "../entities/profile.ts";
import { updateProfile } from "../../actors/accounts/profile.ts";
import { readProfileFields } from "./accounts_own.ts";

async function profileOf(c: Context<ApiEnv>): Promise<Response> {
  const { config, database, mediaUrls } = c.get("ctx");
  const profile = await loadProfile(database, config, mediaUrls, c.get("user")!.accountId);
  if (!profile) throw new ApiError(404, "Record not found");
  return c.json(profile);
}

/** The profile routes, mounted at the root of the app. */
export function profileRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/api/v1/profile", requireUser("profile", "read:accounts"), profileOf);
  app.on(["PUT", "PATCH"], "/api/v1/profile", requireUser("write:accounts"), async (c) => {
    const input = readProfileFields(await params(c));
    await withValidation(() => updateProfile(c.get("ctx"), c.get("user")!.accountId, input));
    return await profileOf(c);
  });
  return app;
}
