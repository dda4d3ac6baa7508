/** Deliveries about a local account's own profile and existence. */
// deno-lint-ignore no-empty-interface
export interface AccountDeliveries {}
