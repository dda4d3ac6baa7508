/**
 * The rules every page shares: palette (light and dark), type, the site
 * header, forms, buttons, tables, and the rules of the public, settings,
 * staff and embed layouts. Part of the one stylesheet (../style.ts).
 */
export const BASE = `
:root{color-scheme:light dark;--fg:#1f232b;--bg:#f3f4f8;--card:#fff;--muted:#545a68;--accent:#4f33c2;--on-accent:#fff;--danger:#b3261e;--ok:#1b6e2f;--border:#cfd3dc;--field:#767b88}
@media (prefers-color-scheme:dark){:root{--fg:#e8e9ee;--bg:#17191f;--card:#22252d;--muted:#b0b4bf;--accent:#a9a9ff;--on-accent:#17191f;--danger:#ff8a80;--ok:#7bd88f;--border:#3a3e49;--field:#8a8f9c}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px;top:.5rem;z-index:1}
.skip:focus{left:.5rem;background:var(--card);padding:.25rem .5rem}
body>header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.6rem 1rem;background:var(--card);border-bottom:1px solid var(--border)}
body>header .brand{font-weight:700;text-decoration:none;color:var(--fg)}
body>header nav{display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1rem}
body>header nav a[aria-current=page]{font-weight:700;text-decoration-thickness:2px}
body>header .end{margin-left:auto}
body>header .who{margin-left:auto;color:var(--muted);display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
body>header form{display:flex;margin:0}
body>header button{padding:.2rem .7rem;margin:0}
main{display:block;max-width:42rem;margin:1rem auto;padding:0 .75rem}
body>footer{max-width:42rem;margin:2rem auto;padding:0 .75rem;color:var(--muted);font-size:.9rem}
body>footer nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
h1{font-size:1.4rem;line-height:1.25;margin:.25rem 0 1rem}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0}
code,.code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
img{max-width:100%}
.layout-form main,.layout-settings main{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1.25rem}
.layout-form main{max-width:30rem;margin:2rem auto}
.layout-settings main{max-width:48rem;margin:1.5rem auto}
.layout-admin main{max-width:72rem;margin:1.5rem auto;padding:0 1rem}
@media (max-width:36rem){.layout-form main,.layout-settings main{margin:.5rem;padding:1rem}}
.card{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1rem;margin:0 0 1rem}
.muted{color:var(--muted)}
.hint{color:var(--muted);font-size:.9rem;margin:.2rem 0 0}
.field-error{color:var(--danger);font-size:.9rem;margin:.2rem 0 0}
.alert{border-left:4px solid var(--danger);padding:.5rem .75rem;margin:0 0 1rem;background:var(--card);color:var(--danger)}
.notice{border-left:4px solid var(--ok);padding:.5rem .75rem;margin:0 0 1rem;background:var(--card)}
.alert p,.notice p{margin:0}
label{display:block;font-weight:600;margin:.9rem 0 .25rem}
label.check,fieldset label{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.4rem 0}
fieldset{border:1px solid var(--border);border-radius:.35rem;margin:1rem 0;padding:.25rem .75rem .5rem}
legend{font-weight:600;padding:0 .25rem}
input,select,textarea,button{font:inherit;color:inherit}
input:not([type]),input[type=text],input[type=email],input[type=password],input[type=date],input[type=search],input[type=url],input[type=number],select,textarea{background:var(--bg);border:1px solid var(--field);border-radius:.35rem;padding:.5rem;width:100%;max-width:100%}
input[type=file]{max-width:100%}
textarea{min-height:5rem}
button,.button{display:inline-block;font-weight:600;padding:.45rem 1rem;border-radius:.35rem;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer;text-decoration:none;line-height:1.5}
button.secondary,.button:not(.primary){background:transparent;color:var(--accent)}
button.danger{background:var(--danger);border-color:var(--danger);color:var(--on-accent)}
button.link{background:none;border:none;padding:0;color:var(--accent);text-decoration:underline;font-weight:400}
:where(main form:not(.inline))>button{margin-top:1rem}
.layout-form main form>button{width:100%;margin-top:1.25rem}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.25rem 0 .75rem}
.actions button,td button{margin:0}
form.inline{display:inline}
nav.more{margin-top:1.25rem;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.pagination{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0}
table{width:100%;border-collapse:collapse;background:var(--card)}
caption{text-align:left;padding:.25rem 0}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--border);vertical-align:top;overflow-wrap:break-word}
thead th{font-size:.9rem;color:var(--muted)}
@media (max-width:40rem){table{display:block;overflow-x:auto}th,td{padding:.4rem .35rem}}
details summary{cursor:pointer;font-weight:600}
img.emoji{width:1.2em;height:1.2em;vertical-align:middle;object-fit:contain}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.25rem 0}
input.code{user-select:all}
ol.codes{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:1.1rem}
.profile .banner{display:block;width:100%;height:9rem;object-fit:cover;border-radius:.5rem .5rem 0 0;background:var(--border)}
.profile .head{display:flex;gap:1rem;align-items:center;margin-top:-2.5rem;padding:0 .5rem}
.profile .avatar{width:5rem;height:5rem;border-radius:.5rem;border:3px solid var(--card);background:var(--card)}
.profile .head div{margin-top:2.5rem}
dl.fields{display:grid;grid-template-columns:minmax(6rem,auto) 1fr;gap:0;margin:.75rem 0;border:1px solid var(--border);border-radius:.35rem}
dl.fields dt,dl.fields dd{margin:0;padding:.4rem .6rem;border-bottom:1px solid var(--border)}
dl.fields dt{font-weight:600;color:var(--muted)}
dl.fields dd.verified{background:color-mix(in srgb,var(--ok) 12%,transparent)}
ul.counts{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0;margin:.5rem 0}
ul.counts strong{font-size:1.1rem}
nav.tabs{display:flex;gap:.25rem;border-bottom:1px solid var(--border);margin:1rem 0 .75rem;overflow-x:auto}
nav.tabs a{padding:.5rem .75rem;text-decoration:none;white-space:nowrap}
nav.tabs a[aria-current=page]{font-weight:700;border-bottom:3px solid var(--accent)}
.figures{display:flex;gap:1rem;flex-wrap:wrap;list-style:none;padding:0}
.figures li{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.5rem 1rem}
.figures strong{display:block;font-size:1.4rem}
.thumbnail{width:100%;max-height:16rem;object-fit:cover;border-radius:.5rem}
.button{margin:.25rem .5rem .25rem 0}
ol.rules li{margin:.4rem 0}
dl.counts{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.75rem;margin:0}
dl.counts div{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem}
dl.counts dt{color:var(--muted);font-size:.9rem}
dl.counts dd{margin:0;font-size:1.6rem;font-weight:700}
dl.report-facts{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1.25rem;margin:0}
dl.report-facts dd{margin:0}
dl.report-facts dd.pre{white-space:pre-wrap}
@media (max-width:36rem){dl.report-facts{grid-template-columns:1fr}dl.report-facts dd{margin-bottom:.5rem}}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin:0 0 1rem}
.filters label{margin:0}
.filters :is(input,select){width:auto}
.layout-admin .muted{font-size:.9rem}
img.current-avatar,img.current-header{display:block;height:auto}
img.current-avatar{max-width:8rem}
p.verified{color:var(--ok);margin:.2rem 0 0}
.layout-embed{background:transparent}
.layout-embed main{max-width:none;margin:0;padding:0}
.embed{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:.75rem 1rem;max-width:38rem;font-size:.95rem}
.embed .author{margin:0}
.embed .handle,.embed .meta{color:var(--muted)}
.embed .meta{font-size:.85rem}
.embed .meta a{color:inherit}
`;
