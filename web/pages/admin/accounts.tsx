/**
 * The staff account list (Mastodon's admin/accounts index): filter links for
 * origin and moderation status, a search form (username, display name,
 * domain; e-mail and IP for roles with manage_user_access), and one row per
 * account, newest first.
 */
import type { FC } from "hono/jsx";
import type { AdminAccount } from "../../../api/entities/admin_account.ts";
import { Pagination } from "./layout.tsx";
import { AccountLink, AccountState, Time } from "./components.tsx";

/** The list's filters as the query gave them (already validated). */
export interface AccountListQuery {
  origin?: "local" | "remote";
  status?: string;
  username?: string;
  display_name?: string;
  by_domain?: string;
  email?: string;
  ip?: string;
}

/** The statuses the page offers, in Mastodon's order. */
export const LIST_STATUSES = [
  ["active", "Active"],
  ["pending", "Pending"],
  ["disabled", "Disabled"],
  ["silenced", "Limited"],
  ["suspended", "Suspended"],
  ["sensitized", "Sensitive"],
] as const;

/** The list's URL for `query` (empty values left out). */
export function accountListUrl(query: AccountListQuery, extra: Record<string, string> = {}) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...extra })) {
    if (value) search.set(key, value);
  }
  const text = search.toString();
  return text ? `/admin/accounts?${text}` : "/admin/accounts";
}

/** When the account last did something we know of: a sign-in or a post. */
export function lastActivity(a: AdminAccount): string | null {
  const seen = [a.ips[0]?.used_at, a.account.last_status_at].filter((v): v is string => !!v);
  if (seen.length === 0) return null;
  return seen.sort().at(-1)!;
}

const FilterLinks: FC<{
  query: AccountListQuery;
  name: "origin" | "status";
  options: readonly (readonly [string, string])[];
}> = ({ query, name, options }) => (
  <span>
    {[["", "All"] as const, ...options].map(([value, label]) => {
      const current = (query[name] ?? "") === value;
      return (
        <>
          <a
            href={accountListUrl({ ...query, [name]: value || undefined })}
            aria-current={current ? "true" : undefined}
            data-filter={`${name}:${value || "all"}`}
          >
            {current ? <strong>{label}</strong> : label}
          </a>
          {" "}
        </>
      );
    })}
  </span>
);

const TextFilter: FC<{ name: keyof AccountListQuery; label: string; value?: string }> = (
  { name, label, value },
) => (
  <div>
    <label for={`filter-${name}`}>{label}</label>
    <input type="search" id={`filter-${name}`} name={name} value={value ?? ""} maxlength={320} />
  </div>
);

export const AccountList: FC<{
  rows: AdminAccount[];
  query: AccountListQuery;
  /** Whether the viewer may search by e-mail and IP (manage_user_access). */
  accessFilters: boolean;
  newer: string | null;
  older: string | null;
}> = ({ rows, query, accessFilters, newer, older }) => (
  <>
    <div class="card">
      <p>
        <strong>Location:</strong>{" "}
        <FilterLinks
          query={query}
          name="origin"
          options={[["local", "Local"], ["remote", "Remote"]]}
        />
      </p>
      <p>
        <strong>Moderation:</strong>{" "}
        <FilterLinks query={query} name="status" options={LIST_STATUSES} />
      </p>
      <form method="get" action="/admin/accounts" class="filters" role="search">
        {query.origin ? <input type="hidden" name="origin" value={query.origin} /> : null}
        {query.status ? <input type="hidden" name="status" value={query.status} /> : null}
        <TextFilter name="username" label="Username" value={query.username} />
        <TextFilter name="display_name" label="Display name" value={query.display_name} />
        <TextFilter name="by_domain" label="Domain" value={query.by_domain} />
        {accessFilters ? <TextFilter name="email" label="E-mail" value={query.email} /> : null}
        {accessFilters ? <TextFilter name="ip" label="IP" value={query.ip} /> : null}
        <button type="submit">Search</button>
      </form>
    </div>
    {rows.length === 0 ? <p class="muted">No account matches.</p> : (
      <table class="accounts">
        <thead>
          <tr>
            <th>Account</th>
            <th>Display name</th>
            <th>Role</th>
            <th>State</th>
            <th>Joined</th>
            <th>Last active</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr data-account={a.id}>
              <td>
                <AccountLink account={a} />
              </td>
              <td>{a.account.display_name}</td>
              <td>{roleName(a)}</td>
              <td class="state">
                <AccountState account={a} />
              </td>
              <td>
                <Time at={a.created_at} day />
              </td>
              <td>
                <Time at={lastActivity(a)} day />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
    <Pagination newer={newer} older={older} />
  </>
);

/** The role's name; "User" for local accounts without a staff role, "Remote" for remote ones. */
export function roleName(a: AdminAccount): string {
  if (a.domain) return "Remote";
  return a.role?.name || "User";
}
