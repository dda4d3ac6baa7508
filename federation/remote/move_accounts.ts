/**
 * The other account of an alias or a move, named by a person (the admin
 * command line, the settings pages): a handle (`user@domain`, `@user@domain`,
 * or a bare local `user`) or an actor URL. A remote account is fetched when
 * it is not stored; for a move always fresh, because its `alsoKnownAs` must
 * be current (Mastodon refetches the target before checking it). One set of
 * rules for every caller; the rules of aliases and moves themselves are in
 * actors/accounts/moves.ts.
 */
import { isActor } from "@fedify/vocab";
import type { AppContext } from "../../context.ts";
import { instanceContext, lookupRemote } from "../fetch/lookup.ts";
import {
  type AccountRow,
  findStoredAccount,
  resolveRemoteAccount,
  upsertRemoteActor,
} from "./accounts.ts";

/** A bare local name as a handle of this server (`alice` → `alice@host`). */
export function accountQuery(app: AppContext, handle: string): string {
  const name = handle.trim().replace(/^@/, "");
  if (/^https?:\/\//i.test(name) || name.includes("@")) return name;
  return `${name}@${new URL(app.config.origin).host}`;
}

/**
 * The live account a handle or URL names: stored, or fetched (fresh when
 * `fresh`). Null when nothing answers, the account is deleted, or the input
 * is not a handle at all.
 */
export async function accountByHandle(
  app: AppContext,
  handle: string,
  fresh: boolean,
): Promise<AccountRow | null> {
  let row = await resolveRemoteAccount(app, accountQuery(app, handle));
  if (row && row.domain != null && fresh) {
    const object = await lookupRemote(instanceContext(app), row.uri);
    row = isActor(object) && object.id?.href === row.uri
      ? await upsertRemoteActor(app, object)
      : null;
  }
  return row && !row.deletedAt ? row : null;
}

/** The actor IRI a handle or URL names among stored accounts (no fetch), or null. */
export async function storedAccountUri(app: AppContext, handle: string): Promise<string | null> {
  return (await findStoredAccount(app, accountQuery(app, handle)))?.uri ?? null;
}
