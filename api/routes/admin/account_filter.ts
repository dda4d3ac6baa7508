/**
 * The one reading of an admin account list's filters, for the admin API
 * (v1 and v2) and the staff pages (web/routes/admin/accounts.tsx), as
 * Mastodon's AccountFilter reads them: text filters trimmed (a blank one is
 * no filter), an address that is not an IP matching no one, and an origin
 * or status that means nothing a 400 `{"error":"Unknown origin: …"}`
 * (Mastodon's InvalidParameterError, answered 400 by its API and its admin
 * pages alike).
 */
import { ApiError } from "../../errors.ts";
import type { Params } from "../../params.ts";
import { readString } from "../../readers.ts";
import {
  ACCOUNT_STATUSES,
  type AccountStatus,
  type AdminAccountFilter,
  isIpOrRange,
} from "../../../db/queries/admin_accounts.ts";

/** The longest text filter kept (longer ones cannot match a name or address we store). */
export const FILTER_MAX = 320;

/** The text filters as sent (trimmed; absent when blank), keyed as the query string. */
export interface AccountTextQuery {
  username?: string;
  display_name?: string;
  by_domain?: string;
  email?: string;
  ip?: string;
}

/** The text filters with origin and status, as v2 and the staff pages take them. */
export interface AccountQuery extends AccountTextQuery {
  origin?: "local" | "remote";
  status?: AccountStatus;
}

/** A trimmed text parameter, absent when blank; 422 when longer than {@link FILTER_MAX}. */
export function filterText(p: Params, key: string): string | undefined {
  const value = readString(p, key, { maxLength: FILTER_MAX })?.trim();
  return value ? value : undefined;
}

/**
 * The text filters of `p`. E-mail and IP are access data: read only when
 * `accessFilters` (the staff pages give them to roles with manage_user_access).
 */
export function readTextQuery(p: Params, accessFilters = true): AccountTextQuery {
  const query: AccountTextQuery = {
    username: filterText(p, "username"),
    display_name: filterText(p, "display_name"),
    by_domain: filterText(p, "by_domain"),
  };
  if (accessFilters) {
    query.email = filterText(p, "email");
    query.ip = filterText(p, "ip");
  }
  return query;
}

/** {@link readTextQuery} with origin and status; ApiError 400 for values that mean nothing. */
export function readAccountQuery(p: Params, accessFilters = true): AccountQuery {
  const query: AccountQuery = readTextQuery(p, accessFilters);
  const origin = filterText(p, "origin");
  if (origin) {
    if (origin !== "local" && origin !== "remote") {
      throw new ApiError(400, `Unknown origin: ${origin.slice(0, 40)}`);
    }
    query.origin = origin;
  }
  const status = filterText(p, "status");
  if (status) {
    if (!(ACCOUNT_STATUSES as readonly string[]).includes(status)) {
      throw new ApiError(400, `Unknown status: ${status.slice(0, 40)}`);
    }
    query.status = status as AccountStatus;
  }
  return query;
}

/** The filter a query means. */
export function accountFilterOf(query: AccountQuery): AdminAccountFilter {
  const filter: AdminAccountFilter = {
    origin: query.origin,
    status: query.status,
    username: query.username,
    displayName: query.display_name,
    byDomain: query.by_domain,
    email: query.email,
  };
  if (query.ip) {
    // Mastodon's valid_ip?: what is not an address or a range matches no one.
    if (isIpOrRange(query.ip)) filter.ip = query.ip;
    else filter.none = true;
  }
  return filter;
}
