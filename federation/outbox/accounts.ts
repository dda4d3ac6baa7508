/** Delivers activities about local accounts (Update and Delete of a Person). */
import type { AppContext } from "../../context.ts";
import type { AccountDeliveries } from "../../actors/outbox/accounts.ts";

export function accountDeliveries(_ctx: AppContext): AccountDeliveries {
  return {};
}
