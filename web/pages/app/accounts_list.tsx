/**
 * Rows of accounts in the web app (follow requests, search results): the
 * avatar, the names linking to the app's profile, and the row's own buttons.
 */
import type { Child, FC } from "hono/jsx";
import type { Account } from "../../../api/entities/account.ts";
import { accountPath } from "../status/links.ts";

export const AccountRow: FC<{ account: Account; id?: string; children?: Child }> = (
  { account, id, children },
) => (
  <li class="account-row" id={id}>
    <img class="avatar" src={account.avatar_static} alt="" width="44" height="44" />
    <a href={accountPath(account)}>
      <span class="name" dir="auto">
        <bdi>{account.display_name || account.username}</bdi>
      </span>{" "}
      <span class="muted">@{account.acct}</span>
    </a>
    {children}
  </li>
);
