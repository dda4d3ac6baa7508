/**
 * App registration and credential checks:
 * - POST /api/v1/apps (public; JSON or form) → CredentialApplication
 * - GET /api/v1/apps/verify_credentials (any valid token of an app) → Application
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { validationFailed } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readString, readStringArray } from "../readers.ts";
import { requireApp } from "../middleware/scopes.ts";
import { applicationEntity, credentialApplicationEntity } from "../entities/application.ts";
import { vapidKeys } from "../../actors/push/vapid.ts";
import {
  APP_LIMITS,
  AppValidationError,
  findApplication,
  registerApplication,
} from "../../actors/oauth/oauth.ts";

/** Reads a parameter that may be one string or a list of strings (redirect URIs, scopes). */
function readStringOrList(p: Params, key: string, maxItems: number): string[] | undefined {
  const value = p[key];
  if (typeof value === "string") return value === "" ? undefined : [value];
  return readStringArray(p, key, { maxItems });
}

/** The app routes, mounted at the root of the app. */
export function appRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post("/api/v1/apps", async (c) => {
    const p = await params(c);
    // Bounds before anything is split or parsed: a huge value is refused outright.
    const name = readString(p, "client_name", { maxLength: APP_LIMITS.nameMax });
    const website = readString(p, "website", { maxLength: APP_LIMITS.websiteMax });
    const redirectUris = readStringOrList(p, "redirect_uris", APP_LIMITS.redirectUrisMax);
    const scopeList = readStringOrList(p, "scopes", 200);
    const overlong = redirectUris?.some((u) =>
      u.length > APP_LIMITS.redirectUriMax * APP_LIMITS.redirectUrisMax
    );
    if (overlong) {
      throw validationFailed(
        `Redirect URI is too long (maximum is ${APP_LIMITS.redirectUriMax} characters)`,
      );
    }
    try {
      const { application, clientSecret } = await registerApplication(c.get("ctx").database.db, {
        name,
        website,
        redirectUris,
        scopes: scopeList?.join(" "),
      });
      const { serverKey } = await vapidKeys(c.get("ctx"));
      return c.json(credentialApplicationEntity(application, clientSecret, serverKey));
    } catch (error) {
      if (error instanceof AppValidationError) throw validationFailed(error.message);
      throw error;
    }
  });

  app.get("/api/v1/apps/verify_credentials", requireApp(), async (c) => {
    const token = c.get("token")!;
    const application = await findApplication(c.get("ctx").database.db, token.applicationId!);
    if (!application) return c.json({ error: "The access token is invalid" }, 401);
    const { serverKey } = await vapidKeys(c.get("ctx"));
    return c.json(applicationEntity(application, serverKey));
  });

  return app;
}
