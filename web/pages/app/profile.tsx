/**
 * The signed-in profile page (design 35 §2.4): the account's header (local
 * or remote, as the Account entity shows it), the relationship bar for
 * someone else, and the account's posts as the viewer may see them, with
 * their action bars.
 */
import type { Child, FC } from "hono/jsx";
import { raw } from "hono/html";
import type { Account } from "../../../api/entities/account.ts";
import type { Relationship } from "../../../api/entities/relationship.ts";
import type { AppViewer } from "./layout.tsx";
import { RelationshipBar } from "./relationship.tsx";
import { emojifyHtml } from "../public/status_card.tsx";
import { accountPath } from "../status/links.ts";

export const ProfileHeader: FC<{
  account: Account;
  relationship: Relationship | null;
  viewer: AppViewer;
  here: string;
}> = ({ account, relationship, viewer, here }) => {
  const remote = account.acct.includes("@");
  return (
    <section class="profile" aria-labelledby="profile-handle">
      <div class="head">
        <img class="avatar" src={account.avatar_static} alt="" width="80" height="80" />
        <p class="muted" id="profile-handle">@{account.acct}</p>
      </div>
      {account.locked ? <p class="muted">This account approves its followers.</p> : null}
      {account.bot ? <p class="muted">This account is automated.</p> : null}
      <div class="note">{raw(emojifyHtml(account.note, account.emojis))}</div>
      <ul class="counts">
        <li>
          <strong>{account.statuses_count}</strong> posts
        </li>
        {account.hide_collections ? null : (
          <>
            <li>
              <a href={`${accountPath(account)}/following`}>
                <strong>{account.following_count}</strong> following
              </a>
            </li>
            <li>
              <a href={`${accountPath(account)}/followers`}>
                <strong>{account.followers_count}</strong> followers
              </a>
            </li>
          </>
        )}
      </ul>
      {remote && account.url
        ? (
          <p>
            <a href={account.url} rel="noopener noreferrer">Open the original profile</a>
          </p>
        )
        : null}
      {relationship
        ? (
          <RelationshipBar
            account={account}
            relationship={relationship}
            viewer={viewer}
            returnTo={here}
          />
        )
        : (
          <p>
            <a href="/settings/profile">Edit profile</a>
          </p>
        )}
    </section>
  );
};

/** The page: header, then the posts (a Timeline the route builds). */
export const AppProfile: FC<{ header: Child; posts: Child }> = ({ header, posts }) => (
  <>
    {header}
    <h2>Posts</h2>
    {posts}
  </>
);
