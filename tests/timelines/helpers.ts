/**
 * Set-up of the timeline tests beyond tests/fixtures (users, API calls,
 * posting): following through the API, reading feeds and their Link headers.
 */
import type { TestInstance } from "../harness.ts";
import { ok } from "../fixtures/api.ts";
import type { TestUser } from "../fixtures/users.ts";

/** `a` follows `b` (options: reblogs, languages…). */
export async function follow(
  instance: TestInstance,
  a: TestUser,
  b: TestUser,
  options: Record<string, unknown> = {},
): Promise<void> {
  await ok(instance, a, "POST", `/api/v1/accounts/${b.id}/follow`, options);
}

/** The ids of a timeline page. */
export async function ids(instance: TestInstance, user: TestUser | null, path: string) {
  const body = await ok<any[]>(instance, user, "GET", path);
  return body.map((s) => s.id as string);
}

/** The `next` and `prev` URLs of a Link header. */
export function links(headers: Headers): { next?: string; prev?: string } {
  const out: { next?: string; prev?: string } = {};
  for (const part of (headers.get("link") ?? "").split(",")) {
    const m = /<([^>]+)>;\s*rel="(next|prev)"/.exec(part.trim());
    if (m) out[m[2] as "next" | "prev"] = m[1];
  }
  return out;
}

/** The path and query of a Link URL, to request it from the instance. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}
