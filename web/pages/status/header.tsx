/**
 * The top of a post in the web app: who boosted it, the author (avatar,
 * display name with emoji, handle) linking our page of them, what it
 * replies to, who may see it when that is not everyone, and its time
 * linking the thread ("Edited" linking the history).
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { Account } from "../../../api/entities/account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import { emojifyText } from "./content.ts";
import { accountPath, statusPath } from "./links.ts";

export const VISIBILITY_WORDS: Record<string, string> = {
  unlisted: "Quiet public",
  private: "Followers only",
  direct: "Mentioned people only",
};

export const DisplayName: FC<{ account: Account }> = ({ account }) => (
  <bdi>{raw(emojifyText(account.display_name || account.username, account.emojis))}</bdi>
);

/** "Ann boosted", above a boost. */
export const BoostedBy: FC<{ account: Account }> = ({ account }) => (
  <p class="boosted">
    <a href={accountPath(account)}>
      <DisplayName account={account} />
    </a>{" "}
    boosted
  </p>
);

/** The author line; `idBase` names the elements the article is labelled by. */
export const StatusHeader: FC<{ status: StatusJson; idBase: string }> = ({ status, idBase }) => (
  <div class="author">
    <img src={status.account.avatar_static} alt="" width="44" height="44" />
    <a href={accountPath(status.account)} id={`${idBase}-by`} data-shortcut="profile">
      <span class="name" dir="auto">
        <DisplayName account={status.account} />
      </span>{" "}
      <span class="muted">@{status.account.acct}</span>
    </a>
  </div>
);

/** The line under the post: time (the thread), edited, visibility, reply target. */
export const StatusMeta: FC<{ status: StatusJson; idBase: string }> = ({ status, idBase }) => (
  <p class="meta muted">
    <a href={statusPath(status)} id={`${idBase}-time`}>
      <time datetime={status.created_at}>
        {status.created_at.slice(0, 16).replace("T", " ")} UTC
      </time>
    </a>
    {status.edited_at ? <a href={`/statuses/${status.id}/history`}>Edited</a> : null}
    {VISIBILITY_WORDS[status.visibility]
      ? <span>{VISIBILITY_WORDS[status.visibility]}</span>
      : null}
    {status.in_reply_to_id ? <span>Reply</span> : null}
  </p>
);
