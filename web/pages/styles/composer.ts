/**
 * The composer (web/pages/app/composer.tsx): text, counter, content
 * warning, options, attachments, poll. Part of the one stylesheet (../style.ts).
 */
export const COMPOSER = `
form.composer{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}
form.composer label:first-of-type{margin-top:0}
form.composer details{margin:.5rem 0}
form.composer select{width:auto}
`;
