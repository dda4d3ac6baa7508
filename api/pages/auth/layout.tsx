/**
 * The shell of the account pages a visitor uses before and around signing
 * in (sign-up, password reset): a small stylesheet of their own, light and
 * dark, readable on a phone, no script. Hono JSX escapes every value.
 *
 * The public pages (api/pages/public/) have a layout of their own, built at
 * the same time; the two are to become one.
 */
import type { Child, FC } from "hono/jsx";

export const STYLE = `
:root{color-scheme:light dark;--fg:#1f232b;--bg:#f3f4f8;--card:#fff;--muted:#5b6170;--accent:#563acc;--danger:#b3261e;--ok:#1e7b34;--border:#8a8f9c}
@media (prefers-color-scheme:dark){:root{--fg:#e8e9ee;--bg:#17191f;--card:#22252d;--muted:#a7abb6;--accent:#a5a6ff;--danger:#ff8a80;--ok:#7bd88f;--border:#5a5f6b}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{padding:.75rem 1.25rem;background:var(--card);border-bottom:1px solid var(--border)}
header a{font-weight:700;text-decoration:none;color:var(--fg)}
main{max-width:30rem;margin:2rem auto;padding:1.25rem;background:var(--card);border:1px solid var(--border);border-radius:.5rem}
h1{font-size:1.4rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.9rem 0 .25rem}
label.check{display:flex;gap:.5rem;align-items:flex-start;font-weight:400}
input[type=text],input[type=email],input[type=password],input[type=date],textarea{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--border);border-radius:.35rem;padding:.5rem;width:100%}
textarea{min-height:5rem}
.hint{color:var(--muted);font-size:.9rem;margin:.2rem 0 0}
.field-error{color:var(--danger);font-size:.9rem;margin:.2rem 0 0}
.alert{border-left:4px solid var(--danger);padding:.5rem .75rem;margin:0 0 1rem;color:var(--danger)}
.notice{border-left:4px solid var(--ok);padding:.5rem .75rem;margin:0 0 1rem}
button{font:inherit;font-weight:600;margin-top:1.25rem;padding:.55rem 1.1rem;border-radius:.35rem;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;width:100%}
@media (prefers-color-scheme:dark){button{color:#17191f}}
nav.more{margin-top:1.25rem;font-size:.95rem}
nav.more a{display:inline-block;margin-right:1rem}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;

/** The hidden field that proves a form came from one of our pages. */
export const CsrfField: FC<{ token: string }> = ({ token }) => (
  <input type="hidden" name="authenticity_token" value={token} />
);

/** A page of the account flow. */
export const AuthLayout: FC<{ title: string; instanceTitle: string; children?: Child }> = (
  { title, instanceTitle, children },
) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>{`${title} - ${instanceTitle}`}</title>
      <style dangerouslySetInnerHTML={{ __html: STYLE }} />
    </head>
    <body>
      <header>
        <a href="/">{instanceTitle}</a>
      </header>
      <main>
        <h1>{title}</h1>
        {children}
      </main>
    </body>
  </html>
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
