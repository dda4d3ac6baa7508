/**
 * Server-wide switches the staff change at run time (table
 * `server_settings`, migration 0045): one JSON value per key. Read straight
 * from the table (a primary-key lookup); the readers are rare requests
 * (a subscription, a digest run), not every request.
 */
import { eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { serverSettings } from "../../db/schema/mod.ts";
import { recordAdminAction } from "../moderation/audit_log.ts";

/** The keys in use and what each holds. */
export interface ServerSettingValues {
  /** The admin's switch for e-mail subscriptions (Mastodon 4.7 newsletters). */
  email_subscriptions: boolean;
}

const DEFAULTS: ServerSettingValues = { email_subscriptions: false };

/** The value of `key`, or its default when unset (or stored with the wrong type). */
export async function serverSetting<K extends keyof ServerSettingValues>(
  db: Executor,
  key: K,
): Promise<ServerSettingValues[K]> {
  const [row] = await db.select({ value: serverSettings.value }).from(serverSettings)
    .where(eq(serverSettings.key, key)).limit(1);
  const value = row?.value;
  return typeof value === typeof DEFAULTS[key] ? value as ServerSettingValues[K] : DEFAULTS[key];
}

/** Sets `key` (insert or replace). */
export async function setServerSetting<K extends keyof ServerSettingValues>(
  db: Executor,
  key: K,
  value: ServerSettingValues[K],
): Promise<void> {
  await db.insert(serverSettings).values({ key, value })
    .onConflictDoUpdate({ target: serverSettings.key, set: { value, updatedAt: new Date() } });
}

/**
 * Sets `key` as a staff member (`actor`; null: the command line) asked,
 * with its audit row, in one transaction.
 */
export async function changeServerSetting<K extends keyof ServerSettingValues>(
  db: Executor,
  key: K,
  value: ServerSettingValues[K],
  actor: string | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    await setServerSetting(tx, key, value);
    await recordAdminAction(tx, {
      accountId: actor,
      action: "update",
      targetType: "Setting",
      targetId: null,
      humanIdentifier: `${key}=${JSON.stringify(value)}`,
    });
  });
}
