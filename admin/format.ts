/** Plain-text output helpers for the admin commands. */

/** A terminal must never receive raw control characters from stored data. */
export function printable(value: string): string {
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  return value.replace(/[\r\n\t]+/g, " ").replace(/[\x00-\x1f\x7f-\x9f]/g, "?");
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  const cells = [headers, ...rows.map((row) => row.map(printable))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells.map((row) =>
    row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join("  ")
      .trimEnd()
  ).join("\n");
}

/** "2024-05-01 12:34" in UTC: sortable, unambiguous, short. */
export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 16).replace("T", " ");
}
