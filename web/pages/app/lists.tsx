/**
 * The web app's lists (design 35 §11.3): the viewer's lists with a "New
 * list" form, and a list's edit page (title, replies policy, exclusive;
 * members with Remove; people one follows found by name, with Add, both
 * in place with the script).
 */
import type { FC } from "hono/jsx";
import type { Account } from "../../../api/entities/account.ts";
import type { ListJson } from "../../../api/entities/list.ts";
import { CsrfField } from "../shell.tsx";
import { AccountRow } from "./accounts_list.tsx";

const POLICIES: [string, string][] = [
  ["followed", "Replies to anyone you follow"],
  ["list", "Replies to members of the list"],
  ["none", "No replies"],
];

/** Title, replies policy and exclusive: the new-list form and the edit form. */
export const ListFields: FC<{ list?: ListJson; error?: string }> = ({ list, error }) => (
  <>
    {error ? <p class="alert" role="alert">{error}</p> : null}
    <label for="list-title">Title</label>
    <input id="list-title" name="title" value={list?.title ?? ""} required maxlength={256} />
    <fieldset>
      <legend>Show replies</legend>
      {POLICIES.map(([value, label]) => (
        <label class="check">
          <input
            type="radio"
            name="replies_policy"
            value={value}
            checked={(list?.replies_policy ?? "list") === value}
          />
          {label}
        </label>
      ))}
    </fieldset>
    <input type="hidden" name="exclusive" value="false" />
    <label class="check">
      <input type="checkbox" name="exclusive" value="true" checked={list?.exclusive ?? false} />
      Hide these posts from Home (they show in this list only)
    </label>
  </>
);

export const ListsPage: FC<{ lists: ListJson[]; token: string; error?: string }> = (
  { lists, token, error },
) => (
  <>
    {lists.length === 0 ? <p>You have no lists yet.</p> : (
      <ul class="lists">
        {lists.map((list) => (
          <li>
            <a href={`/lists/${list.id}`}>{list.title}</a>{" "}
            <a href={`/lists/${list.id}/edit`} class="muted">Edit</a>
          </li>
        ))}
      </ul>
    )}
    <h2>New list</h2>
    <form method="post" action="/lists" class="list-form">
      <CsrfField token={token} />
      <ListFields error={error} />
      <button type="submit">Create list</button>
    </form>
  </>
);

/** What the members part of a list's edit page shows. */
export interface ListMembersProps {
  list: ListJson;
  members: Account[];
  q: string;
  found: Account[];
  token: string;
  /** As the script's fragment after adding or removing someone: what to announce. */
  announce?: string;
}

/**
 * The members with Remove, and people one follows found by name with Add:
 * the part the script swaps in after either (`data-replace`), moving the
 * focus to its heading since the pressed button is gone.
 */
export const ListMembers: FC<ListMembersProps> = ({ list, members, q, found, token, announce }) => {
  const base = `/lists/${list.id}`;
  const memberIds = new Set(members.map((m) => m.id));
  const fragment = announce !== undefined;
  return (
    <section
      id="list-members-section"
      aria-labelledby="list-members-heading"
      data-replace={fragment ? "list-members-section" : undefined}
      data-announce={fragment ? announce : undefined}
    >
      <h2 id="list-members-heading" tabindex={-1} data-focus={fragment ? "" : undefined}>
        Members
      </h2>
      {members.length === 0
        ? <p>Nobody is on this list yet.</p>
        : (
          <ul class="accounts" id="list-members">
            {members.map((account) => (
              <AccountRow account={account} id={`member-${account.id}`}>
                <form method="post" action={`${base}/accounts/remove`} data-enhance>
                  <CsrfField token={token} />
                  <input type="hidden" name="account_ids[]" value={account.id} />
                  <input type="hidden" name="q" value={q} />
                  <button type="submit" class="secondary">
                    Remove <span class="sr-only">@{account.acct}</span>
                  </button>
                </form>
              </AccountRow>
            ))}
          </ul>
        )}
      <h2>Add people you follow</h2>
      <form method="get" action={`${base}/edit`} role="search">
        <label for="member-q">Name or handle</label>
        <input type="search" id="member-q" name="q" value={q} maxlength={500} />
        <button type="submit">Find</button>
      </form>
      {q && found.length === 0 ? <p>Nobody you follow matches.</p> : null}
      <ul class="accounts">
        {found.filter((a) => !memberIds.has(a.id)).map((account) => (
          <AccountRow account={account}>
            <form method="post" action={`${base}/accounts`} data-enhance>
              <CsrfField token={token} />
              <input type="hidden" name="account_ids[]" value={account.id} />
              <input type="hidden" name="q" value={q} />
              <button type="submit">
                Add <span class="sr-only">@{account.acct}</span>
              </button>
            </form>
          </AccountRow>
        ))}
      </ul>
    </section>
  );
};

export const ListEditPage: FC<ListMembersProps & { error?: string }> = (props) => {
  const base = `/lists/${props.list.id}`;
  return (
    <>
      <p>
        <a href={base}>Open the list's timeline</a>
      </p>
      <form method="post" action={`${base}/update`} class="list-form">
        <CsrfField token={props.token} />
        <ListFields list={props.list} error={props.error} />
        <button type="submit">Save</button>
      </form>
      <ListMembers {...props} />
      <p>
        <a href={`${base}/delete`}>Delete this list</a>
      </p>
    </>
  );
};
