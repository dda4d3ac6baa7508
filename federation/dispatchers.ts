/**
 * Registers every dispatcher and inbox listener on the federation object.
 */
import type { Federation } from "@fedify/fedify";
import type { AppContext } from "../context.ts";

export function registerDispatchers(_federation: Federation<AppContext>): void {
  // Filled in by the actor, WebFinger, NodeInfo and collection modules.
}
