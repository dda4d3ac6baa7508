export const Temporal = globalThis.Temporal;
export const Intl = globalThis.Intl;
export function toTemporalInstant() {
  return Temporal.Instant.fromEpochMilliseconds(this.getTime());
}
