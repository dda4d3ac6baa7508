/**
 * sharp, imported where an image is first processed rather than at start:
 * the module and its native library cost about 25 MiB of RSS and a quarter
 * of a second of start-up, and a process may handle no image for hours (a
 * worker, a small instance between uploads).
 */
import type sharpModule from "sharp";

export type SharpFactory = typeof sharpModule;
/** A sharp pipeline. */
export type Sharp = ReturnType<SharpFactory>;

/** The sharp factory, loaded on the first call (the module registry keeps it after). */
export async function loadSharp(): Promise<SharpFactory> {
  return (await import("sharp")).default;
}
