/**
 * What the API's media routes and the web app's uploads read from a
 * request's parameters (the description, the focal point) and how a refused
 * upload is worded (Mastodon's messages), so a page accepts and refuses
 * exactly what a client may send.
 */
import type { Config } from "../config.ts";
import { ApiError, validationFailed } from "./errors.ts";
import type { Params } from "./params.ts";
import { readString } from "./readers.ts";
import type { MediaRejected } from "../actors/media/errors.ts";
import { type Focus, parseFocus } from "../actors/media/upload.ts";
import { MEDIA_LIMITS } from "./entities/instance.ts";

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** Mastodon's wording of a refused upload, as a 422. */
export function mediaRejection(config: Config, error: MediaRejected): ApiError {
  const field = error.field === "file" ? "File" : "Thumbnail";
  switch (error.reason) {
    case "size": {
      const limit = error.limit ?? config.limits.imageSizeLimit;
      return validationFailed(`${field} file size must be less than ${megabytes(limit)}`);
    }
    case "dimensions":
      return validationFailed(
        `${field} dimensions are too large (at most ${MEDIA_LIMITS.imageMatrixLimit} pixels)`,
      );
    default:
      return validationFailed(`${field} content type is invalid, ${field} is invalid`);
  }
}

/** The focal point (`focus`, "x,y" from -1 to 1), or undefined; 422 when malformed. */
export function readFocus(p: Params): Focus | undefined {
  const raw = readString(p, "focus");
  if (raw === undefined) return undefined;
  const focus = parseFocus(raw);
  if (!focus) throw validationFailed("Focus is invalid");
  return focus;
}

/** The alt text (`description`, within the instance's limit), or undefined. */
export function readDescription(p: Params): string | undefined {
  return readString(p, "description", {
    maxLength: MEDIA_LIMITS.descriptionLimit,
    allowBlank: true,
  });
}
