/** Small encoding helpers (JSR's @std/encoding is not reachable here). */
export function encodeHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
