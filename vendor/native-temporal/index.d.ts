// The types of the runtime's own Temporal and Intl, under the polyfill's names.
import NativeTemporal = globalThis.Temporal;
import NativeIntl = globalThis.Intl;
export { NativeIntl as Intl, NativeTemporal as Temporal };
export function toTemporalInstant(this: Date): NativeTemporal.Instant;
