/**
 * The token owner's own account:
 * - POST /api/v1/accounts (app token + write:accounts) → Token (registration;
 *   403 when registrations are closed or an IP block refuses the client's sign-ups)
 * - GET /api/v1/accounts/verify_credentials (profile or read:accounts) → CredentialAccount
 * - PATCH|PUT /api/v1/accounts/update_credentials (write:accounts) → CredentialAccount
 * - DELETE /api/v1/profile/avatar, /api/v1/profile/header (write:accounts) → CredentialAccount
 * - GET /api/v1/preferences (read:accounts) → Preferences
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { readPreferences } from "../reads/preferences.ts";
import { ApiError } from "../errors.ts";
import { type Params, params } from "../params.ts";
import {
  readBoolean,
  readFile,
  readPermittedObject,
  readString,
  readStringArray,
} from "../readers.ts";
import { requireApp, requireUser } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { loadCredentialAccount } from "../entities/credential_account.ts";
import { preferencesEntity } from "../entities/preferences.ts";
import { tokenEntity } from "../entities/token.ts";
import { registerAccount } from "../../actors/accounts/registration.ts";
import { signUpForbiddenFrom } from "../../actors/access_blocks/sign_up.ts";
import { clientIp } from "../client_ip.ts";
import {
  type ProfileUpdate,
  removeProfileImage,
  updateProfile,
} from "../../actors/accounts/profile.ts";
import type { FieldSource } from "../../model/user_settings.ts";

/** Mastodon's `forbidden` answer, used when registrations are closed. */
const NOT_ALLOWED = "This action is not allowed";

/** Longest text accepted for any one sign-up or profile string before validation proper. */
const MAX_INPUT_LENGTH = 10_000;

/** Mastodon's acceptance check: only `true`, `"true"` and `"1"` accept. */
function readAgreement(p: Params): boolean {
  const value = p.agreement;
  return value === true || value === "true" || value === "1" || value === 1;
}

function readText(p: Params, key: string, allowBlank = false): string | undefined {
  return readString(p, key, { maxLength: MAX_INPUT_LENGTH, allowBlank });
}

/**
 * `fields_attributes` as a hash (`[0][name]=…`) or an array. The hash's keys
 * do not matter; its values are taken in key order (numeric keys ascending,
 * as JavaScript objects keep them, then the others as they came). As Rails'
 * strong parameters, a scalar (`fields_attributes=undefined`, as one client
 * library sends) leaves the fields alone, and items that are not hashes are
 * dropped.
 */
export function readFields(p: Params): FieldSource[] | undefined {
  const value = p.fields_attributes;
  const isHash = (v: unknown): v is Params =>
    v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof File);
  const items = Array.isArray(value) ? value : isHash(value) ? Object.values(value) : null;
  return items?.filter(isHash).map(toField);
}

function toField(item: Params): FieldSource {
  return {
    name: readString(item, "name", { maxLength: MAX_INPUT_LENGTH, allowBlank: true }) ?? "",
    value: readString(item, "value", { maxLength: MAX_INPUT_LENGTH, allowBlank: true }) ?? "",
  };
}

/**
 * The profile parameters of update_credentials and `/api/v1/profile`, typed;
 * shape errors become 422 here.
 */
export function readProfileFields(p: Params): ProfileUpdate {
  return {
    displayName: readText(p, "display_name", true),
    note: readText(p, "note", true),
    avatar: readFile(p, "avatar"),
    header: readFile(p, "header"),
    locked: readBoolean(p, "locked"),
    bot: readBoolean(p, "bot"),
    discoverable: readBoolean(p, "discoverable"),
    hideCollections: readBoolean(p, "hide_collections"),
    indexable: readBoolean(p, "indexable"),
    attributionDomains: p.attribution_domains === ""
      ? []
      : readStringArray(p, "attribution_domains", { maxItems: 100 }),
    fields: readFields(p),
    avatarDescription: readText(p, "avatar_description", true),
    headerDescription: readText(p, "header_description", true),
    showMedia: readBoolean(p, "show_media"),
    showMediaReplies: readBoolean(p, "show_media_replies"),
    showFeatured: readBoolean(p, "show_featured"),
  };
}

/** Every parameter of update_credentials: the profile and the posting defaults (`source`). */
function readProfileUpdate(p: Params): ProfileUpdate {
  const source = readPermittedObject(p, "source") ?? {};
  return {
    ...readProfileFields(p),
    privacy: readString(source, "privacy"),
    sensitive: readBoolean(source, "sensitive"),
    language: readString(source, "language"),
    quotePolicy: readString(source, "quote_policy"),
  };
}

/** The CredentialAccount of the request's user. */
async function credentialAccount(c: Context<ApiEnv>): Promise<Response> {
  const { database, mediaUrls } = c.get("ctx");
  const entity = await loadCredentialAccount(database.db, mediaUrls, c.get("user")!.accountId);
  if (!entity) throw new ApiError(404, "Record not found");
  return c.json(entity);
}

/** The routes, mounted at the root of the app. */
export function ownAccountRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post("/api/v1/accounts", requireApp("write:accounts"), async (c) => {
    const ctx = c.get("ctx");
    if (ctx.config.registrations === "closed") return c.json({ error: NOT_ALLOWED }, 403);
    const ip = clientIp(c);
    if (await signUpForbiddenFrom(ctx, ip)) return c.json({ error: NOT_ALLOWED }, 403);
    const p = await params(c);
    const registration = await withValidation(() =>
      registerAccount(ctx, {
        username: readText(p, "username"),
        email: readText(p, "email"),
        password: readText(p, "password"),
        agreement: readAgreement(p),
        locale: readText(p, "locale"),
        reason: readText(p, "reason"),
        dateOfBirth: readText(p, "date_of_birth"),
        applicationId: c.get("token")!.applicationId!,
        ip,
      })
    );
    c.header("Cache-Control", "no-store");
    return c.json(tokenEntity(registration.accessToken, registration.token));
  });

  app.get(
    "/api/v1/accounts/verify_credentials",
    requireUser("read:accounts", "profile"),
    credentialAccount,
  );

  const update = async (c: Context<ApiEnv>) => {
    const ctx = c.get("ctx");
    const input = readProfileUpdate(await params(c));
    await withValidation(() => updateProfile(ctx, c.get("user")!.accountId, input));
    return await credentialAccount(c);
  };
  app.patch("/api/v1/accounts/update_credentials", requireUser("write:accounts"), update);
  app.put("/api/v1/accounts/update_credentials", requireUser("write:accounts"), update);

  for (const kind of ["avatar", "header"] as const) {
    app.delete(`/api/v1/profile/${kind}`, requireUser("write:accounts"), async (c) => {
      await removeProfileImage(c.get("ctx"), c.get("user")!.accountId, kind);
      return await credentialAccount(c);
    });
  }

  app.get("/api/v1/preferences", requireUser("read:accounts"), async (c) => {
    const preferences = await readPreferences(c.get("ctx"), c.get("user")!.id);
    if (!preferences) throw new ApiError(404, "Record not found");
    return c.json(preferencesEntity(preferences));
  });

  return app;
}
