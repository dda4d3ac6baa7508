/**
 * The web app's own paths of what a post shows: a profile, a thread, a
 * hashtag. Remote accounts and posts have local pages too (`/@user@domain`),
 * where the signed-in reader can act on them; the original's address is
 * offered beside them.
 */
import type { StatusJson } from "../../../api/entities/status.ts";

export function accountPath(account: { acct: string }): string {
  return `/@${account.acct}`;
}

export function statusPath(status: Pick<StatusJson, "id" | "account">): string {
  return `/@${status.account.acct}/${status.id}`;
}

export function tagPath(name: string): string {
  return `/tags/${encodeURIComponent(name)}`;
}
