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
article.status .meta{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.4rem 0 0;font-size:.9rem}
article.status .meta a{color:inherit}
article.status .content p{margin:.4rem 0}
article.status details.cw>summary,article.status details.filtered>summary{font-weight:400}
.media figure{margin:0}
.media details.alt summary{font-size:.75rem;color:var(--muted)}
details.sensitive>summary{display:block;padding:3rem 1rem;margin:.5rem 0;border-radius:.35rem;background:var(--border);text-align:center;position:relative;overflow:hidden}
details.sensitive .placeholders{position:absolute;inset:0;display:flex;gap:2px}
details.sensitive .placeholders img{flex:1;min-width:0;width:100%;height:100%;object-fit:cover}
details.sensitive .label{position:relative;background:var(--card);color:var(--fg);padding:.25rem .6rem;border-radius:.25rem}
details.sensitive[open] .placeholders{display:none}
.poll ul{list-style:none;padding:0;margin:.5rem 0}
.poll li{display:grid;grid-template-columns:1fr auto;gap:0 .5rem;margin:.35rem 0}
.poll progress{grid-column:1/-1;width:100%;height:.5rem}
a.link-card{display:flex;gap:.75rem;margin:.5rem 0;border:1px solid var(--border);border-radius:.35rem;overflow:hidden;text-decoration:none;color:var(--fg)}
a.link-card img{width:6rem;height:6rem;object-fit:cover;flex:none}
a.link-card .link-card-text{display:flex;flex-direction:column;padding:.5rem;min-width:0}
blockquote.quote{margin:.5rem 0;padding:.5rem .75rem;border:1px solid var(--border);border-radius:.35rem}
p.quote{font-size:.9rem}
.status-actions{margin:.5rem 0 0;gap:.5rem 1rem;font-size:.9rem}
.depth-1{margin-left:1rem}.depth-2{margin-left:2rem}.depth-3{margin-left:3rem}.depth-4{margin-left:4rem}
@media (max-width:36rem){.depth-2,.depth-3,.depth-4{margin-left:2rem}}
article.status .details{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.4rem 0 0;font-size:.9rem}
`;
