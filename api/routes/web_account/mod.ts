/** The account pages of the web face: sign-up and password reset (more to come: settings). */
import { Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { webSignUpRoutes } from "./sign_up.tsx";
import { passwordResetRoutes } from "./password.tsx";

export function webAccountRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.route("/", webSignUpRoutes());
  app.route("/", passwordResetRoutes());
  return app;
}
