/**
 * The `account alias` and `account move` admin commands: a local account
 * lists the accounts that may move to it (`alsoKnownAs`), or moves away to
 * an account that lists it (actors/accounts/moves.ts). Both name the other account
 * by handle (`user@domain`, or a local `user`) or actor URL; a remote one is
 * fetched (for `move`, always fresh: its aliases must be current). They run
 * inside the server (admin socket) or with the command line's own context.
 */
import type { AppContext } from "../context.ts";
import type { AdminEnv, Command } from "./command.ts";
import { NotFoundError } from "../model/errors.ts";
import { requireLocalUser } from "../actors/moderation/local_users.ts";
import { addAlias, moveLocalAccount, removeAlias } from "../actors/accounts/moves.ts";
import { accountByHandle, storedAccountUri } from "../federation/remote/move_accounts.ts";
import type { AccountRow } from "../federation/remote/accounts.ts";
import { safe, UsageError } from "./args.ts";

function appOf(env: AdminEnv): AppContext {
  if (!env.app) throw new Error("this command needs the server's federation context");
  return env.app;
}

/** The account a handle or URL names (federation/remote/move_accounts.ts), or NotFoundError. */
async function accountOf(app: AppContext, handle: string, fresh: boolean): Promise<AccountRow> {
  const row = await accountByHandle(app, handle, fresh);
  if (!row) throw new NotFoundError(`No account found for ${safe(handle)}`);
  return row;
}

/** The commands, merged into the command table. */
export const MOVE_COMMANDS: Record<string, Command> = {
  "account alias": {
    usage: "account alias <username> add|remove <user@domain|url>",
    positionals: ["username", "action", "account"],
    options: {},
    async run(env, args) {
      const app = appOf(env);
      const { username, action, account } = args.positionals;
      const { account: local } = await requireLocalUser(env.db, username);
      if (action === "add") {
        const alias = await accountOf(app, account, false);
        const aliases = await addAlias(app, local.id, alias);
        return `@${local.username} now lists ${aliases.length} alias(es): ${aliases.join(", ")}`;
      }
      if (action === "remove") {
        const uri = await storedAccountUri(app, account) ?? account.trim();
        const removed = await removeAlias(app, local.id, uri);
        return removed
          ? `Removed ${safe(uri)} from the aliases of @${local.username}.`
          : `${safe(uri)} is not an alias of @${local.username}.`;
      }
      throw new UsageError("The action must be add or remove");
    },
  },
  "account move": {
    usage: "account move <username> <user@domain|url>",
    positionals: ["username", "account"],
    options: {},
    async run(env, args) {
      const app = appOf(env);
      const { account: local } = await requireLocalUser(env.db, args.positionals.username);
      const target = await accountOf(app, args.positionals.account, true);
      const outcome = await moveLocalAccount(app, local.id, target.id);
      const name = target.domain ? `${target.username}@${target.domain}` : target.username;
      return outcome === "already"
        ? `@${local.username} has already moved to @${safe(name)}.`
        : `Moved @${local.username} to @${safe(name)}: its followers are told (Move) ` +
          `and its local followers follow the new account.`;
    },
  },
};
