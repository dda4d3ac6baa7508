/**
 * The composer (web/pages/app/composer.tsx): text, counter, content
 * warning, options, attachments, poll. Part of the one stylesheet (../style.ts).
 */
export const COMPOSER = `
form.composer{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}
form.composer label:first-of-type{margin-top:0}
form.composer details{margin:.5rem 0}
form.composer select{width:auto}
form.composer output#status-count{display:block}
form.composer output.over{color:var(--danger);font-weight:600}
form.composer progress.upload-progress{display:block;width:100%;margin:.5rem 0}
form.composer .options{display:flex;flex-wrap:wrap;gap:0 1rem}
form.composer .options select{max-width:100%}
form.composer fieldset.attachments{border:1px solid var(--border);border-radius:.35rem;padding:.5rem .75rem;margin:.5rem 0;min-width:0;box-sizing:border-box}
form.composer fieldset.attachments textarea{box-sizing:border-box;width:100%}
.attachment-list{list-style:none;padding:0;margin:0}
li.attachment{display:grid;grid-template-columns:96px 1fr;gap:.25rem .75rem;align-items:start;margin:.5rem 0}
li.attachment img{width:96px;height:96px;object-fit:cover;border-radius:.25rem;grid-row:span 2}
li.attachment label{margin:0}
form.composer .slot{margin:.5rem 0;padding-top:.5rem;border-top:1px solid var(--border)}
form.composer .slot:first-of-type{border-top:0}
.composer-target{margin:0 0 1rem}
.composer-target h2{font-size:1rem;margin:0 0 .25rem;color:var(--muted)}
.scheduled-list,ol.history{list-style:none;padding:0}
li.scheduled{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 .75rem}
li.scheduled form.inline{display:inline-flex;gap:.5rem;align-items:center;flex-wrap:wrap;margin:.25rem .75rem .25rem 0}
li.scheduled form.inline label{margin:0}
`;
