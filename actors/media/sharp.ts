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

let loading: Promise<SharpFactory> | undefined;

/** The sharp factory, loaded on the first call. */
export function loadSharp(): Promise<SharpFactory> {
  return loading ??= import("sharp").then((module) => module.default);
}
