/**
 * Role and server settings (Mastodon 4.7): `role show`, `role set` (two-factor
 * sign-in required, collection limit, e-mail subscriptions per role) and
 * `setting show` / `setting set` (the server-wide switches). Each change
 * writes its audit row, with no actor (the command line).
 */
import type { Command } from "./command.ts";
import { safe, UsageError } from "./args.ts";
import { table } from "./format.ts";
import {
  allRoleSettings,
  changeRoleSettings,
  MAX_COLLECTION_LIMIT,
  parseCollectionLimit,
  ROLES,
  type RoleSettings,
  type RoleSettingsChange,
} from "../actors/roles/role_settings.ts";
import { changeServerSetting, serverSetting } from "../actors/settings/server_settings.ts";

function onOff(name: string, raw: string): boolean {
  if (raw === "on" || raw === "true") return true;
  if (raw === "off" || raw === "false") return false;
  throw new UsageError(`--${name} takes on or off, not ${safe(raw)}`);
}

function roleChange(strings: Record<string, string>): RoleSettingsChange {
  const change: RoleSettingsChange = {};
  if (strings["require-2fa"] != null) {
    change.requireTwoFactor = onOff("require-2fa", strings["require-2fa"]);
  }
  if (strings["email-subscriptions"] != null) {
    change.emailSubscriptions = onOff("email-subscriptions", strings["email-subscriptions"]);
  }
  const limit = strings["collection-limit"];
  if (limit != null) {
    const n = parseCollectionLimit(limit);
    if (n == null) throw new UsageError(`--collection-limit takes 0 to ${MAX_COLLECTION_LIMIT}`);
    change.collectionLimit = n;
  }
  if (Object.keys(change).length === 0) throw new UsageError("Nothing to change");
  return change;
}

function roleTable(rows: RoleSettings[]): string {
  return table(
    ["role", "require 2FA", "collection limit", "e-mail subscriptions"],
    rows.map((r) => [
      r.role,
      r.requireTwoFactor ? "on" : "off",
      String(r.collectionLimit),
      r.emailSubscriptions ? "on" : "off",
    ]),
  );
}

/** The server-wide switches `setting set` knows. */
const SETTINGS = ["email_subscriptions"] as const;

/** The commands, merged into the command table. */
export const ROLE_COMMANDS: Record<string, Command> = {
  "role show": {
    usage: "role show",
    positionals: [],
    options: {},
    async run(env) {
      return roleTable(await allRoleSettings(env.db));
    },
  },
  "role set": {
    usage:
      "role set <role> [--require-2fa on|off] [--collection-limit N] [--email-subscriptions on|off]",
    positionals: ["role"],
    options: {
      "require-2fa": "string",
      "collection-limit": "string",
      "email-subscriptions": "string",
    },
    async run(env, args) {
      const role = args.positionals.role;
      if (!(ROLES as readonly string[]).includes(role)) {
        throw new UsageError(`The role is one of ${ROLES.join(", ")}, not ${safe(role)}`);
      }
      const settings = await changeRoleSettings(env.db, role, roleChange(args.strings), null);
      return roleTable([settings]);
    },
  },
  "setting show": {
    usage: "setting show",
    positionals: [],
    options: {},
    async run(env) {
      const rows = await Promise.all(
        SETTINGS.map(async (key) => [key, String(await serverSetting(env.db, key))]),
      );
      return table(["setting", "value"], rows);
    },
  },
  "setting set": {
    usage: "setting set email_subscriptions <on|off>",
    positionals: ["key", "value"],
    options: {},
    async run(env, args) {
      const { key, value } = args.positionals;
      if (key !== "email_subscriptions") {
        throw new UsageError(`Unknown setting ${safe(key)} (known: ${SETTINGS.join(", ")})`);
      }
      await changeServerSetting(env.db, key, onOff("value", value), null);
      return `${key}: ${String(await serverSetting(env.db, key))}`;
    },
  },
};
