/**
 * Snowflake identifiers: milliseconds since the Unix epoch shifted left by 16
 * bits, plus 16 low bits made of a 6-bit process tag and a 10-bit counter.
 *
 * Time ordering makes `max_id`/`since_id`/`min_id` paging work on every table,
 * and remote objects get ids from their own publication time so they sort
 * where they belong. The process tag keeps ids from several processes that
 * share one PostgreSQL database apart (see {@link setProcessTag}).
 */

let processTag = Math.floor(Math.random() * 64);
let lastMs = 0;
let counter = 0;

/** Sets the 6-bit tag that distinguishes this process's ids (0–63). */
export function setProcessTag(tag: number): void {
  processTag = ((tag % 64) + 64) % 64;
}

/** A new id for a row created now. */
export function newId(): string {
  let now = Date.now();
  if (now === lastMs) {
    counter++;
    if (counter >= 1024) {
      // Exhausted this millisecond: borrow the next one rather than repeat.
      lastMs++;
      now = lastMs;
      counter = 0;
    } else {
      now = lastMs;
    }
  } else if (now < lastMs) {
    // Clock stepped backwards: keep counting on the last millisecond used.
    now = lastMs;
    counter++;
    if (counter >= 1024) {
      lastMs++;
      now = lastMs;
      counter = 0;
    }
  } else {
    lastMs = now;
    counter = 0;
  }
  return ((BigInt(now) << 16n) | BigInt((processTag << 10) | counter)).toString();
}

/** An id placed at a given time, for objects published elsewhere. */
export function idFromTime(date: Date): string {
  const ms = BigInt(Math.max(0, date.getTime()));
  const low = BigInt(Math.floor(Math.random() * 65536));
  return ((ms << 16n) | low).toString();
}

/** The lowest id at the given time, for turning a time into a paging bound. */
export function minIdAt(date: Date): string {
  return (BigInt(Math.max(0, date.getTime())) << 16n).toString();
}

/** The time encoded in an id. */
export function timeOfId(id: string): Date {
  return new Date(Number(BigInt(id) >> 16n));
}

/** Whether a string is a well-formed id (used to reject junk early, not as a lookup). */
export function isId(value: unknown): value is string {
  return typeof value === "string" && /^[0-9]{1,19}$/.test(value) &&
    BigInt(value) <= 9223372036854775807n;
}
