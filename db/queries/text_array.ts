/**
 * A PostgreSQL `text[]` literal, to pass a list of strings as one
 * parameter (`${textArray(list)}::text[]`): drizzle would otherwise send
 * one parameter per element, and a statement's text would change with the
 * list's length.
 */
export function textArray(values: readonly string[]): string {
  return `{${values.map(arrayElement).join(",")}}`;
}

/** One element of the literal, quoted and escaped. */
function arrayElement(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
