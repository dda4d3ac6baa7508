export import Temporal = globalThis.Temporal;
export import Intl = globalThis.Intl;
export function toTemporalInstant(this: Date): Temporal.Instant;
