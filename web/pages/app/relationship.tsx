/**
 * The relationship bar of a profile (design 35 §10.2): one form, its
 * buttons real POSTs chosen by `formaction` (Follow / Unfollow / Cancel the
 * request, Unmute, Unblock), the actions that need a confirmation as links
 * to it (Mute with its duration, Block), and what the other account does
 * ("Follows you"). With the script the same form comes back as a fragment
 * replacing `#account-<id>`.
 */
import type { FC } from "hono/jsx";
import type { Account } from "../../../api/entities/account.ts";
import type { Relationship } from "../../../api/entities/relationship.ts";
import type { AppViewer } from "./layout.tsx";
import { CsrfField } from "../shell.tsx";

export const RelationshipBar: FC<{
  account: Account;
  relationship: Relationship;
  viewer: AppViewer;
  returnTo: string;
  /** Sent as a fragment replacing the bar on the page. */
  replace?: boolean;
}> = ({ account, relationship: r, viewer, returnTo, replace }) => {
  const base = `/accounts/${account.id}`;
  const back = encodeURIComponent(returnTo);
  return (
    <form
      method="post"
      action={`${base}/follow`}
      class="actions relationship"
      id={`account-${account.id}`}
      data-replace={replace ? `account-${account.id}` : undefined}
      data-enhance
    >
      <CsrfField token={viewer.csrfToken} />
      <input type="hidden" name="return_to" value={returnTo} />
      {r.blocking
        ? null
        : r.following
        ? <button type="submit" formaction={`${base}/unfollow`}>Unfollow</button>
        : r.requested
        ? <button type="submit" formaction={`${base}/unfollow`}>Cancel follow request</button>
        : (
          <button type="submit" formaction={`${base}/follow`}>
            {account.locked ? "Ask to follow" : r.followed_by ? "Follow back" : "Follow"}
          </button>
        )}
      {r.muting
        ? <button type="submit" formaction={`${base}/unmute`}>Unmute</button>
        : <a href={`${base}/mute?return_to=${back}`}>Mute</a>}
      {r.blocking
        ? <button type="submit" formaction={`${base}/unblock`}>Unblock</button>
        : <a href={`${base}/block?return_to=${back}`}>Block</a>}
      <a href={`/reports/new?account_id=${account.id}&return_to=${back}`}>Report</a>
      {r.followed_by ? <span class="badge">Follows you</span> : null}
      {r.requested ? <span class="badge">Follow request sent</span> : null}
      {r.blocked_by ? <span class="badge">Blocks you</span> : null}
    </form>
  );
};
