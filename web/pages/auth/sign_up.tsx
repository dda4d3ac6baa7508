/**
 * The sign-up form (`/auth/sign_up`): the fields POST /api/v1/accounts
 * takes, with each field's problems shown beside it. The reason is asked
 * when staff approve sign-ups; the date of birth when a minimum age is set.
 */
import type { FC } from "hono/jsx";
import { AuthLayout, CsrfField, Field, type FieldErrors, fieldName } from "./layout.tsx";

export interface SignUpForm {
  username?: string;
  email?: string;
  reason?: string;
  dateOfBirth?: string;
}

/** The fields the form has an input for; problems of any other still show, above the form. */
const SHOWN = new Set([
  "username",
  "email",
  "password",
  "password_confirmation",
  "agreement",
  "reason",
  "date_of_birth",
]);

/** Why the person wants to join, when staff approve sign-ups. */
const ReasonInput: FC<{ form?: SignUpForm; errors?: FieldErrors; reasonMax: number }> = (
  { form, errors, reasonMax },
) => {
  const reasonErrors = errors?.reason ?? [];
  return (
    <div>
      <label for="reason">Why do you want to join?</label>
      <textarea
        id="reason"
        name="reason"
        maxlength={reasonMax}
        required
        aria-describedby={reasonErrors.length ? "reason-hint reason-error" : "reason-hint"}
        aria-invalid={reasonErrors.length ? "true" : undefined}
      >
        {form?.reason ?? ""}
      </textarea>
      <p class="hint" id="reason-hint">
        Sign-ups here are reviewed by the staff; this helps them decide.
      </p>
      {reasonErrors.length
        ? (
          <p class="field-error" id="reason-error">
            {reasonErrors.map((p) => `Reason ${p.description}`).join("; ")}
          </p>
        )
        : null}
    </div>
  );
};

/** The agreement to the rules and terms. */
const AgreementBox: FC<{ errors?: FieldErrors }> = ({ errors }) => {
  const agreementErrors = errors?.agreement ?? [];
  return (
    <>
      <label class="check" for="agreement">
        <input
          id="agreement"
          type="checkbox"
          name="agreement"
          value="1"
          required
          aria-describedby={agreementErrors.length ? "agreement-error" : undefined}
        />
        <span>
          I agree to the <a href="/about">server rules</a> and the{" "}
          <a href="/terms-of-service">terms of service</a>.
        </span>
      </label>
      {agreementErrors.length
        ? (
          <p class="field-error" id="agreement-error">
            The agreement {agreementErrors[0].description}
          </p>
        )
        : null}
    </>
  );
};

/** Name, address and password. */
const AccountFields: FC<{ domain: string; form?: SignUpForm; errors?: FieldErrors }> = (
  { domain, form, errors },
) => (
  <>
    <Field
      name="username"
      label="Username"
      value={form?.username}
      hint={`Your address will be @username@${domain}. Letters, digits and underscores.`}
      errors={errors}
      autocomplete="username"
      required
      maxlength={30}
    />
    <Field
      name="email"
      label="E-mail address"
      type="email"
      value={form?.email}
      hint="We send a confirmation link here. It is never shown to others."
      errors={errors}
      autocomplete="email"
      required
      maxlength={320}
    />
    <Field
      name="password"
      label="Password"
      type="password"
      hint="At least 8 characters."
      errors={errors}
      autocomplete="new-password"
      required
      maxlength={72}
    />
    <Field
      name="password_confirmation"
      label="Confirm password"
      type="password"
      errors={errors}
      autocomplete="new-password"
      required
      maxlength={72}
    />
  </>
);

export const SignUpPage: FC<{
  instanceTitle: string;
  domain: string;
  csrfToken: string;
  approval: boolean;
  askBirthDate: boolean;
  reasonMax: number;
  form?: SignUpForm;
  errors?: FieldErrors;
}> = ({ instanceTitle, domain, csrfToken, approval, askBirthDate, reasonMax, form, errors }) => {
  const other = Object.entries(errors ?? {}).filter(([name]) => !SHOWN.has(name));
  return (
    <AuthLayout title={`Join ${instanceTitle}`} instanceTitle={instanceTitle}>
      {errors && Object.keys(errors).length
        ? <p class="alert" role="alert">Please review the problems below.</p>
        : null}
      {other.map(([name, list]) => (
        <p class="alert">
          {list.map((p) => name === "base" ? p.description : `${fieldName(name)} ${p.description}`)
            .join("; ")}
        </p>
      ))}
      <form method="post" action="/auth/sign_up">
        <CsrfField token={csrfToken} />
        <AccountFields domain={domain} form={form} errors={errors} />
        {askBirthDate
          ? (
            <Field
              name="date_of_birth"
              label="Date of birth"
              type="date"
              value={form?.dateOfBirth}
              errors={errors}
              autocomplete="bday"
              required
            />
          )
          : null}
        {approval ? <ReasonInput form={form} errors={errors} reasonMax={reasonMax} /> : null}
        <AgreementBox errors={errors} />
        <button type="submit">Sign up</button>
      </form>
      <nav class="more" aria-label="More">
        <a href="/auth/sign_in">Already have an account? Sign in</a>
      </nav>
    </AuthLayout>
  );
};
