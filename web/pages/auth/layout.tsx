/**
 * The account pages a visitor uses before and around signing in (sign-in,
 * sign-up, password reset, the second factor, OAuth consent): a narrow
 * card on the shared shell (../shell.tsx), `noindex`, the instance's name
 * as the only navigation. Hono JSX escapes every value.
 */
import type { Child, FC } from "hono/jsx";
import { Brand, Shell } from "../shell.tsx";

/** The hidden field that proves a form came from one of our pages (one definition: the shell's). */
export { CsrfField } from "../shell.tsx";

/** A page of the account flow. */
export const AuthLayout: FC<{ title: string; instanceTitle: string; children?: Child }> = (
  { title, instanceTitle, children },
) => (
  <Shell
    title={`${title} - ${instanceTitle}`}
    layout="form"
    robots="noindex"
    header={<Brand instanceTitle={instanceTitle} />}
  >
    <h1>{title}</h1>
    {children}
  </Shell>
);

/** A page that only says something (and offers where to go next). */
export const MessagePage: FC<{
  title: string;
  instanceTitle: string;
  text: string;
  alert?: boolean;
  links?: { href: string; label: string }[];
}> = ({ title, instanceTitle, text, alert, links }) => (
  <AuthLayout title={title} instanceTitle={instanceTitle}>
    <p class={alert ? "alert" : "notice"} role={alert ? "alert" : "status"}>{text}</p>
    {links?.length
      ? (
        <nav class="more" aria-label="Next steps">
          {links.map((l) => {
            // Hono's precompiled JSX would print a `key` as an attribute.
            // deno-lint-ignore jsx-key
            return <a href={l.href}>{l.label}</a>;
          })}
        </nav>
      )
      : null}
  </AuthLayout>
);

/** Problems of a form, by field (Mastodon's validation details). */
export type FieldErrors = Record<string, { error: string; description: string }[]>;

/** A labelled input with its hint and its errors, tied together for screen readers. */
export const Field: FC<{
  name: string;
  label: string;
  type?: string;
  value?: string;
  hint?: string;
  errors?: FieldErrors;
  autocomplete?: string;
  required?: boolean;
  maxlength?: number;
}> = ({ name, label, type, value, hint, errors, autocomplete, required, maxlength }) => {
  const problems = errors?.[name] ?? [];
  const describedBy = [hint ? `${name}-hint` : "", problems.length ? `${name}-error` : ""]
    .filter(Boolean).join(" ") || undefined;
  return (
    <div>
      <label for={name}>{label}</label>
      <input
        id={name}
        name={name}
        type={type ?? "text"}
        value={value}
        autocomplete={autocomplete}
        required={required}
        maxlength={maxlength}
        aria-invalid={problems.length ? "true" : undefined}
        aria-describedby={describedBy}
      />
      {hint ? <p class="hint" id={`${name}-hint`}>{hint}</p> : null}
      {problems.length
        ? (
          <p class="field-error" id={`${name}-error`}>
            {problems.map((p) => `${fieldName(name)} ${p.description}`).join("; ")}
          </p>
        )
        : null}
    </div>
  );
};

/** How a field is named in an error sentence ("Username is already taken"). */
export function fieldName(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
