/** The account pages of the web face: sign-up, password reset, e-mail confirmation, two-factor sign-in, settings. */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { webSignUpRoutes } from "./sign_up.tsx";
import { passwordResetRoutes } from "./password.tsx";
import { twoFactorSignInRoutes } from "./two_factor_sign_in.tsx";
import { twoFactorSettingsRoutes } from "../settings/two_factor.tsx";
import { settingsRoutes } from "../settings/applications.tsx";
import { confirmationResendRoutes } from "./confirmation.tsx";
import { confirmationLinkRoutes } from "./confirmation_link.tsx";

export function webAccountRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.route("/", webSignUpRoutes());
  app.route("/", passwordResetRoutes());
  app.route("/", twoFactorSignInRoutes());
  app.route("/", twoFactorSettingsRoutes());
  app.route("/", settingsRoutes());
  app.route("/", confirmationResendRoutes());
  app.route("/", confirmationLinkRoutes());
  return app;
}
