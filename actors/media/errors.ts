/**
 * Why an upload was refused. The API words each reason as Mastodon does
 * (api/routes/media.ts); commands stay free of HTTP.
 */

/** The reasons an upload can be refused. */
export type RejectionReason =
  /** Not a format we accept, or the bytes do not match the claimed type. */
  | "type"
  /** Recognised, but the decoder failed on it. */
  | "corrupt"
  /** Over the size limit of its kind. */
  | "size"
  /** More pixels than we are willing to decode. */
  | "dimensions";

/** A refused upload (original file or thumbnail). */
export class MediaRejected extends Error {
  /**
   * @param limit for `size`: the limit the file went over (images and
   * videos have different ones, and only the bytes tell which it is)
   */
  constructor(
    readonly reason: RejectionReason,
    readonly field: "file" | "thumbnail" = "file",
    readonly limit?: number,
  ) {
    super(`${field} rejected: ${reason}`);
  }

  /** The same refusal, about another field. */
  about(field: "file" | "thumbnail"): MediaRejected {
    return new MediaRejected(this.reason, field, this.limit);
  }
}
