/**
 * Notifications, profiles, lists and the other app pages of engineer B's
 * part, and the action bar's toggles. Part of the one stylesheet
 * (../style.ts). Pressed toggles are told by weight and a border as well as
 * colour, so the state does not rest on colour alone.
 */
export const NOTIFICATIONS = `
.status-actions button{background:none;color:var(--accent);border:1px solid transparent;padding:.2rem .45rem;font-weight:400}
.status-actions button[aria-pressed=true]{font-weight:700;border-color:var(--accent)}
.status-actions details.more{display:inline-block}
.status-actions details.more>div{display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:.35rem 0}
.notifications,.approvals,.accounts,.lists,.tags{list-style:none;padding:0;margin:0}
.notification,.conversation,.approvals li{border-bottom:1px solid var(--border);padding:.75rem 0}
.notification .sentence{margin:0 0 .4rem}
.notification .subject{margin:0 0 .4rem;color:var(--muted)}
.notification form{margin:.25rem 0 0}
.notification .status{border:0;padding:0}
.account-row{display:flex;flex-wrap:wrap;align-items:center;gap:.6rem;padding:.6rem 0;border-bottom:1px solid var(--border)}
.account-row img{width:2.75rem;height:2.75rem;border-radius:.35rem}
.account-row>a{text-decoration:none;color:var(--fg);flex:1 1 12rem;min-width:0}
.account-row .name{font-weight:700}
.account-row form{margin:0}
.profile .head{display:flex;gap:1rem;align-items:center}
/* The app profile has no banner above: nothing to overlap (the public one pulls its avatar up). */
.profile>.head:first-child{margin-top:0}
.profile .avatar{width:5rem;height:5rem;border-radius:.5rem}
.relationship{align-items:center}
.badge{font-size:.85rem;border:1px solid var(--border);border-radius:1rem;padding:.1rem .6rem;color:var(--muted)}
.search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
.search input[type=search]{flex:1 1 16rem}
.search details{flex-basis:100%}
.lists li{padding:.4rem 0}
`;
