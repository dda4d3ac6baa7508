/**
 * The web app's own layout (web/pages/app/layout.tsx): the visually hidden
 * announcer, the feed, the pager. The reduced-motion and JS-only rules go at
 * the end. Part of the one stylesheet (../style.ts).
 */
export const APP = `
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.layout-app main{max-width:42rem}
.layout-app h1{margin:.25rem 0 .75rem}
.feed{margin:0 0 1rem}
.feed.empty{background:var(--card);border:1px solid var(--border);border-radius:.5rem;padding:1rem}
nav.pager{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0}
nav.pager a[rel=next]{margin-left:auto}
@media (min-width:64rem){body.layout-app{display:grid;grid-template-columns:14rem minmax(0,1fr);align-items:start}body.layout-app>header{flex-direction:column;align-items:stretch;height:100vh;position:sticky;top:0;border-bottom:0;border-right:1px solid var(--border)}body.layout-app>header nav{flex-direction:column;align-items:flex-start}body.layout-app>header .who{margin-left:0;margin-top:auto}body.layout-app main{margin:1rem auto;width:100%}}
details.more-nav{position:relative}
details.more-nav>div{display:flex;flex-direction:column;gap:.25rem;padding:.5rem 0}
details.more-nav>summary{font-weight:400;color:var(--accent)}
.js .no-js-only{display:none}
button.new-posts{display:block;width:100%;margin:0 0 .75rem;animation:rookery-fade .2s ease-out}
button.new-posts[hidden]{display:none}
.tombstone{color:var(--muted,inherit);font-style:italic;border:1px dashed var(--border);border-radius:.5rem;padding:.75rem}
nav a.unread::after{content:"";display:inline-block;width:.5rem;height:.5rem;margin-left:.3rem;border-radius:50%;background:var(--accent);vertical-align:middle}
@media (forced-colors:active){nav a.unread::after{background:CanvasText}}
@keyframes rookery-fade{from{opacity:0}to{opacity:1}}
@media (prefers-reduced-motion:reduce){*,::before,::after{animation-duration:0s!important;animation-iteration-count:1!important;transition-duration:0s!important;scroll-behavior:auto!important}}
`;
