/**
 * The `account suspend|unsuspend|silence|unsilence` admin commands: the
 * moderation actions of the admin API (actors/moderation/account_actions.ts),
 * taken by the machine's operator (audit rows with no account), on a local
 * account (`alice`) or a remote one (`bob@example.com`). No e-mail is sent.
 */
import type { AdminEnv, Command } from "./command.ts";
import type { AppContext } from "../context.ts";
import { Problems } from "../model/errors.ts";
import {
  accountIdByHandle,
  NotAllowedError,
  OPERATOR,
  performAction,
  unsilenceAccount,
  unsuspendAccountCommand,
} from "../actors/moderation/account_actions.ts";
import { safe } from "./args.ts";

const handle = { positionals: ["account"], options: {} };

/** NotAllowedError → a readable validation message (the operator may do anything else). */
/** Where an action's mail would go (these commands send none; the server's context has it). */
function mailContext(app: AdminEnv["app"]): AppContext {
  if (!app) throw new Error("this command needs the server's context");
  return app;
}

async function explain<T>(fn: () => Promise<T>, why: string): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof NotAllowedError)) throw error;
    const problems = new Problems();
    problems.add("account", "ERR_NOT_ALLOWED", why);
    problems.throwIfAny();
    throw error;
  }
}

/** The commands, merged into the command table. */
export const MODERATION_COMMANDS: Record<string, Command> = {
  "account suspend": {
    usage: "account suspend <username|user@domain>",
    ...handle,
    async run({ db, config, app }, args) {
      const id = await accountIdByHandle(db, args.positionals.account);
      await performAction(db, mailContext(app), OPERATOR, id, {
        type: "suspend",
        sendEmailNotification: false,
      });
      return `Suspended @${
        safe(args.positionals.account.replace(/^@/, ""))
      }: its data is deleted ` +
        `after ${config.suspensionGraceDays} days unless it is unsuspended.`;
    },
  },
  "account unsuspend": {
    usage: "account unsuspend <username|user@domain>",
    ...handle,
    async run({ db }, args) {
      const id = await accountIdByHandle(db, args.positionals.account);
      await explain(
        () => unsuspendAccountCommand(db, OPERATOR, id),
        "is not suspended here (or its own server suspended it)",
      );
      return `Unsuspended @${safe(args.positionals.account.replace(/^@/, ""))}.`;
    },
  },
  "account silence": {
    usage: "account silence <username|user@domain>",
    ...handle,
    async run({ db, app }, args) {
      const id = await accountIdByHandle(db, args.positionals.account);
      await performAction(db, mailContext(app), OPERATOR, id, {
        type: "silence",
        sendEmailNotification: false,
      });
      return `Limited @${safe(args.positionals.account.replace(/^@/, ""))}.`;
    },
  },
  "account unsilence": {
    usage: "account unsilence <username|user@domain>",
    ...handle,
    async run({ db }, args) {
      const id = await accountIdByHandle(db, args.positionals.account);
      await unsilenceAccount(db, OPERATOR, id);
      return `Lifted the limit on @${safe(args.positionals.account.replace(/^@/, ""))}.`;
    },
  },
};
