// Stands in for @js-temporal/polyfill (deno.json "links"): Fedify imports
// Temporal from that package; Deno has Temporal built in. The polyfill's
// arithmetic was 1–2% of an inbound note's CPU, and its objects were not
// instances of the runtime's classes our code checks against.
export const Temporal = globalThis.Temporal;
export const Intl = globalThis.Intl;

export function toTemporalInstant() {
  return Temporal.Instant.fromEpochMilliseconds(this.getTime());
}
