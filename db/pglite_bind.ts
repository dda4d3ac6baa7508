/**
 * One execution of a prepared statement as protocol bytes: Bind (text
 * parameters, text results), Execute (all rows), Sync, written into one
 * buffer.
 *
 * PGlite's `serialize.bind` grows a shared writer byte by byte through
 * helper calls (each parameter's length measured, then encoded, then the
 * writer flushed and copied), and the three messages were then copied once
 * more into one: 3–4% of the server's CPU on an inbound note on PGlite,
 * where each note runs about a dozen statements. Here each string is encoded
 * once, straight into its place. The bytes are those PGlite writes for the
 * same call (tests/server/database_statements_test.ts).
 */

const encoder = new TextEncoder();

/** Execute (unnamed portal, no row limit) and Sync, as PGlite writes them. */
const EXECUTE_AND_SYNC = Uint8Array.of(69, 0, 0, 0, 9, 0, 0, 0, 0, 0, 83, 0, 0, 0, 4);

/** Bind, Execute and Sync for `statement` (an ASCII name) with `values` as text (null: NULL). */
export function bindExecuteSync(statement: string, values: readonly (string | null)[]): Uint8Array {
  // An upper bound: UTF-8 takes at most 3 bytes per UTF-16 code unit.
  let size = 1 + 4 + 1 + statement.length + 1 + 2 + 2 * values.length + 2 + 2 +
    EXECUTE_AND_SYNC.length;
  for (const value of values) size += 4 + (value === null ? 0 : 3 * value.length);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = 66; // 'B'; its length is written last
  let at = 5;
  out[at++] = 0; // the unnamed portal
  at += encoder.encodeInto(statement, out.subarray(at)).written;
  out[at++] = 0;
  view.setUint16(at, values.length); // a format code per parameter: all text (0)
  at += 2 + 2 * values.length;
  view.setUint16(at, values.length);
  at += 2;
  for (const value of values) {
    if (value === null) {
      view.setInt32(at, -1);
      at += 4;
      continue;
    }
    const written = encoder.encodeInto(value, out.subarray(at + 4)).written;
    view.setInt32(at, written);
    at += 4 + written;
  }
  view.setInt16(at, 0); // no result format codes: all text
  at += 2;
  view.setInt32(1, at - 1);
  out.set(EXECUTE_AND_SYNC, at);
  return out.subarray(0, at + EXECUTE_AND_SYNC.length);
}
