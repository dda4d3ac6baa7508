/**
 * The web sign-up (`/auth/sign_up`), as Mastodon's RegistrationsController:
 * the form, and its post through the same command as POST /api/v1/accounts
 * (actors/accounts/registration.ts: agreement, reserved names, e-mail, IP and
 * canonical-address blocks, approval with a reason, minimum age), then a
 * page that says what comes next (confirm the address, wait for approval,
 * or sign in). Closed registrations and blocked addresses get an honest 403.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { clientIp } from "../../../api/client_ip.ts";
import { ValidationError } from "../../../model/errors.ts";
import {
  isSupportedLocale,
  REASON_MAX,
  registerFromWeb,
} from "../../../actors/accounts/registration.ts";
import { signUpForbiddenFrom } from "../../../actors/access_blocks/sign_up.ts";
import { type SignUpForm, SignUpPage } from "../../pages/auth/sign_up.tsx";
import { type FieldErrors, MessagePage } from "../../pages/auth/layout.tsx";
import { signInCsrfToken } from "./authorize_request.ts";
import { formField, formParams, formTokenMatches, sendAccountPage } from "./page.ts";

/** What the page after a sign-up says, by key (the redirect carries only the key). */
const NEXT_STEPS = {
  confirm:
    "Almost done! We sent a confirmation link to your e-mail address. Follow it to activate your account, then sign in.",
  pending:
    "Thank you! The staff will review your sign-up. You will get an e-mail once it is approved.",
  confirm_pending:
    "Thank you! Follow the link we sent to your e-mail address to confirm it. The staff will also review your sign-up; you will get an e-mail once it is approved.",
  ready: "Welcome! Your account is ready: you can sign in now.",
} as const;

const CLOSED = "Sign-ups are closed on this server.";

function closedPage(c: Context<ApiEnv>) {
  const { config } = c.get("ctx");
  return sendAccountPage(
    c,
    <MessagePage
      title="Sign-ups are closed"
      instanceTitle={config.instance.title}
      text={CLOSED}
      alert
      links={[{ href: "/about", label: "About this server" }, {
        href: "/auth/sign_in",
        label: "Sign in",
      }]}
    />,
    403,
  );
}

/** Whether this visitor may not sign up at all (closed, or an IP block). */
async function signUpRefused(c: Context<ApiEnv>): Promise<boolean> {
  const { config } = c.get("ctx");
  return config.registrations === "closed" || await signUpForbiddenFrom(c.get("ctx"), clientIp(c));
}

function showForm(
  c: Context<ApiEnv>,
  options: { form?: SignUpForm; errors?: FieldErrors; status?: 200 | 403 | 422 } = {},
) {
  const { config } = c.get("ctx");
  return sendAccountPage(
    c,
    <SignUpPage
      instanceTitle={config.instance.title}
      domain={config.domain}
      csrfToken={signInCsrfToken(c)}
      approval={config.registrations === "approval"}
      askBirthDate={config.minAge != null}
      reasonMax={REASON_MAX}
      form={options.form}
      errors={options.errors}
    />,
    options.status ?? 200,
  );
}

const EXPIRED = {
  base: [{ error: "ERR_INVALID", description: "This form expired: please send it again." }],
};

export function webSignUpRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/auth/sign_up", async (c) => {
    if (await signUpRefused(c)) return await closedPage(c);
    return await showForm(c);
  });

  app.post("/auth/sign_up", async (c) => {
    if (await signUpRefused(c)) return await closedPage(c);
    const p = await formParams(c);
    if (!p) return await showForm(c, { errors: EXPIRED, status: 403 });
    const form: SignUpForm = {
      username: formField(p, "username", 100),
      email: formField(p, "email", 400),
      reason: formField(p, "reason", REASON_MAX * 2),
      dateOfBirth: formField(p, "date_of_birth", 20),
    };
    if (!formTokenMatches(c, p)) return await showForm(c, { form, errors: EXPIRED, status: 403 });
    const password = formField(p, "password", 1000);
    if (password !== formField(p, "password_confirmation", 1000)) {
      return await showForm(c, {
        form,
        errors: {
          password_confirmation: [{ error: "ERR_CONFIRMATION", description: "doesn't match" }],
        },
        status: 422,
      });
    }
    const agreement = ["1", "on", "true"].includes(formField(p, "agreement", 10));
    const { config } = c.get("ctx");
    try {
      const result = await registerFromWeb(c.get("ctx"), {
        username: form.username,
        email: form.email,
        password,
        agreement,
        // Mastodon takes the interface's locale; here the browser's first choice.
        locale: browserLocale(c.req.header("accept-language")),
        reason: config.registrations === "approval" || form.reason ? form.reason : undefined,
        dateOfBirth: form.dateOfBirth || undefined,
        ip: clientIp(c),
      });
      const next = result.needsConfirmation
        ? (result.pending ? "confirm_pending" : "confirm")
        : (result.pending ? "pending" : "ready");
      return c.redirect(`/auth/sign_up/done?next=${next}`, 303);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return await showForm(c, { form, errors: error.details, status: 422 });
    }
  });

  app.get("/auth/sign_up/done", (c) => {
    const { config } = c.get("ctx");
    const key = c.req.query("next") ?? "";
    const text = Object.hasOwn(NEXT_STEPS, key)
      ? NEXT_STEPS[key as keyof typeof NEXT_STEPS]
      : NEXT_STEPS.ready;
    return sendAccountPage(
      c,
      <MessagePage
        title="Thanks for signing up"
        instanceTitle={config.instance.title}
        text={text}
        links={[{ href: "/auth/sign_in", label: "Sign in" }]}
      />,
    );
  });

  return app;
}

/** The first language of an Accept-Language header, when it is a plain tag; else none. */
function browserLocale(header: string | undefined): string | undefined {
  const first = header?.split(",")[0]?.split(";")[0]?.trim() ?? "";
  return isSupportedLocale(first) ? first : undefined;
}
