/**
 * Where a form may send the browser back to: a path of ours only (the
 * sign-in form's `redirect_to`, the web app's `return_to`).
 */

/**
 * A path on this server to go back to (after signing in, after a form), or
 * `fallback`. Anything else (another origin, `//host`, a backslash that
 * browsers read as a slash) would make the form an open redirect.
 */
export function localPath(value: string | undefined, fallback = "/"): string {
  if (!value || value.length > 2000) return fallback;
  if (!value.startsWith("/") || value.startsWith("//") || value.includes("\\")) return fallback;
  // Control characters: browsers drop tabs and newlines, so "/\t/host" is "//host".
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) < 0x20) return fallback;
  return value;
}
