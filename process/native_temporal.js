// What the bundled build imports where Fedify imports @js-temporal/polyfill
// (process/bundle.ts): the runtime's own Temporal. The polyfill's arithmetic
// was 1–2% (PGlite) to 3% (PostgreSQL) of an inbound note's CPU; the native
// one parses, compares and prints the same (tests/server/bundle_test.ts).
// Fedify imports only `Temporal`; the polyfill's other exports are here so
// that an upgrade importing them still finds them.
export const Temporal = globalThis.Temporal;
export const Intl = globalThis.Intl;

/** The polyfill's `Date.prototype.toTemporalInstant`, called with a Date as `this`. */
export function toTemporalInstant() {
  return Temporal.Instant.fromEpochMilliseconds(this.getTime());
}
