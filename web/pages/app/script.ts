/**
 * The web app's one script file (web/assets/rookery.js), read once at start:
 * its bytes, the hash in its URL (a new script is a new URL, cached for a
 * year) and its Subresource Integrity value for the `<script>` tag.
 */
import { APP_SCRIPT_PATH } from "../../routes/page_response.ts";

export const APP_SCRIPT = await Deno.readTextFile(
  new URL("../../assets/rookery.js", import.meta.url),
);

const bytes = new TextEncoder().encode(APP_SCRIPT);
const sha256 = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
const sha384 = new Uint8Array(await crypto.subtle.digest("SHA-384", bytes));

/** The first 16 hex digits of the script's SHA-256: its `?v=`. */
export const APP_SCRIPT_VERSION = Array.from(
  sha256.slice(0, 8),
  (b) => b.toString(16).padStart(2, "0"),
)
  .join("");

/** `sha384-…`, what the page's `<script integrity>` pins. */
export const APP_SCRIPT_INTEGRITY = `sha384-${btoa(String.fromCharCode(...sha384))}`;

/** The `<script>` the app's layout loads. */
export const APP_SCRIPT_TAG = {
  src: `${APP_SCRIPT_PATH}?v=${APP_SCRIPT_VERSION}`,
  integrity: APP_SCRIPT_INTEGRITY,
};
