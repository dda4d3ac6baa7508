/**
 * The action bar under a post (design 35 §10.1): one form per post, one
 * form token, each button a real POST chosen by its `formaction` (the
 * opposite command of the state it shows, which `aria-pressed` states), so
 * everything works without the script; with it, the same form comes back
 * as the replaced article (web/routes/app/interactions.ts). Counts are in
 * the buttons' text. The rarer actions sit in a "More" disclosure (a
 * `<details>`, not an ARIA menu, which would need the script).
 */
import type { FC } from "hono/jsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import type { AppViewer } from "./layout.tsx";
import { statusPath } from "../status/links.ts";
import { CsrfField } from "../shell.tsx";

export interface ActionBarProps {
  /** The post acted on (the boosted one, for a boost). */
  status: StatusJson;
  viewer: AppViewer;
  /** Where the forms come back to (the page and this post's anchor). */
  returnTo: string;
}

/** Whether the viewer may boost: not a direct post, nor someone else's private one. */
function boostable(status: StatusJson, viewer: AppViewer): boolean {
  if (status.visibility === "direct") return false;
  return status.visibility !== "private" || status.account.id === viewer.accountId;
}

/** A toggle: pressed shows the state, the button posts the opposite command. */
const Toggle: FC<{
  base: string;
  on: string;
  off: string;
  pressed: boolean;
  label: string;
  count?: number;
  /** The single-key shortcut that clicks this button (web/assets/rookery.js POST_KEYS). */
  shortcut?: string;
}> = ({ base, on, off, pressed, label, count, shortcut }) => (
  <button
    type="submit"
    formaction={`${base}/${pressed ? off : on}`}
    aria-pressed={pressed ? "true" : "false"}
    data-focus-key={on}
    data-shortcut={shortcut}
  >
    {label}
    {count === undefined ? null : (
      <>
        {" "}
        <span class="count">{count}</span>
      </>
    )}
  </button>
);

export const ActionBar: FC<ActionBarProps> = ({ status, viewer, returnTo }) => {
  const base = `/statuses/${status.id}`;
  const own = status.account.id === viewer.accountId;
  const remote = status.account.acct.includes("@");
  return (
    <form method="post" action={`${base}/favourite`} class="actions status-actions" data-enhance>
      <CsrfField token={viewer.csrfToken} />
      <input type="hidden" name="return_to" value={returnTo} />
      <a href={`${statusPath(status)}#reply`} data-shortcut="reply">
        Reply <span class="count">{status.replies_count}</span>
      </a>
      {boostable(status, viewer)
        ? (
          <Toggle
            base={base}
            on="reblog"
            off="unreblog"
            pressed={!!status.reblogged}
            label="Boost"
            shortcut="reblog"
            count={status.reblogs_count}
          />
        )
        : (
          <span class="muted" title="Only public and unlisted posts can be boosted">
            Boosts <span class="count">{status.reblogs_count}</span>
          </span>
        )}
      <Toggle
        base={base}
        on="favourite"
        off="unfavourite"
        pressed={!!status.favourited}
        label="Favourite"
        shortcut="favourite"
        count={status.favourites_count}
      />
      <Toggle
        base={base}
        on="bookmark"
        off="unbookmark"
        pressed={!!status.bookmarked}
        label="Bookmark"
        shortcut="bookmark"
      />
      <details class="more">
        <summary>
          More<span class="sr-only">{` for the post by ${status.account.acct}`}</span>
        </summary>
        <div role="group" aria-label="More actions">
          <Toggle
            base={base}
            on="mute"
            off="unmute"
            pressed={!!status.muted}
            label="Mute conversation"
          />
          {status.pinned === undefined ? null : (
            <Toggle
              base={base}
              on="pin"
              off="unpin"
              pressed={status.pinned}
              label="Pin on profile"
            />
          )}
          {own
            ? (
              <>
                <a href={`${base}/edit`}>Edit</a>
                <a href={`${base}/delete?return_to=${encodeURIComponent(returnTo)}`}>Delete</a>
              </>
            )
            : (
              <a
                href={`/reports/new?account_id=${status.account.id}&status_ids%5B%5D=${status.id}&return_to=${
                  encodeURIComponent(returnTo)
                }`}
              >
                Report
              </a>
            )}
          {remote && status.url
            ? <a href={status.url} rel="noopener noreferrer">Open original</a>
            : null}
        </div>
      </details>
    </form>
  );
};
