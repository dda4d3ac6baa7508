/**
 * Where an app form goes back to: its hidden `return_to` (the page and the
 * anchor of the post acted on, so a reader without script lands where they
 * were), if it is a path of ours; otherwise the route's fallback.
 */
import type { Params } from "../../../api/params.ts";
import { localPath } from "../local_path.ts";

export function returnTo(p: Params, fallback: string): string {
  const value = p.return_to;
  return localPath(typeof value === "string" ? value : undefined, fallback);
}

/** The request's own path and query, with an anchor: the `return_to` of a form on this page. */
export function hereWith(url: string, anchor?: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}${anchor ? `#${anchor}` : ""}`;
}
