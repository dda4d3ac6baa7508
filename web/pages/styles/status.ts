/**
 * Posts: the article of a status, its author line, media grid and footer,
 * on the public pages and in the web app (web/pages/status/). Part of the
 * one stylesheet (../style.ts).
 */
export const STATUS = `
article.status{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem 1rem;margin:0 0 .75rem}
article.status.focus{border:2px solid var(--accent)}
article.status .boosted{margin:0 0 .4rem;color:var(--muted);font-size:.9rem}
article.status .author,.embed .author{display:flex;gap:.6rem;align-items:center}
article.status .author img{width:2.75rem;height:2.75rem;border-radius:.35rem}
article.status .author a,.embed .author a{text-decoration:none;color:var(--fg)}
article.status .author .name{font-weight:700}
.media{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.4rem;margin:.5rem 0}
.media img,.media video{width:100%;max-height:22rem;object-fit:cover;border-radius:.35rem;background:var(--border)}
article.status footer{margin:.4rem 0 0;padding:0;font-size:.9rem;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
`;
