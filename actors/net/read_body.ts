/**
 * Reading a body up to a limit without downloading the rest: a link
 * preview's page is truncated there (Mastodon reads a page the same way);
 * ActivityPub documents and inbox deliveries are refused past it.
 */

/** The body's first bytes, at most `max`, and whether there was more. */
export interface BodyPrefix {
  bytes: Uint8Array<ArrayBuffer>;
  truncated: boolean;
}

/** Reads at most `max` bytes of `body`; the rest is cancelled, never read. */
export async function readUpTo(body: ReadableStream<Uint8Array>, max: number): Promise<BodyPrefix> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.length > max - size) {
        chunks.push(value.subarray(0, max - size));
        size = max;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return { bytes, truncated };
}
