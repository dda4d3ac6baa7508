/** Small encoding helpers (JSR's @std/encoding is not reachable here). */
export function encodeHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Decodes base64 or base64url, padded or not; null when it is neither. */
export function decodeBase64Any(text: string): Uint8Array | null {
  const normal = text.trim().replaceAll("-", "+").replaceAll("_", "/").replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/]*$/.test(normal) || normal.length % 4 === 1) return null;
  try {
    const binary = atob(normal + "=".repeat((4 - normal.length % 4) % 4));
    return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

/** base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
