/**
 * Turns a command's ValidationError into Mastodon's 422 answer, the shape of
 * its ValidationErrorFormatter: `{"error": "Validation failed: …", "details":
 * {field: [{error, description}]}}`, fields named as the parameters were.
 */
import { ValidationError } from "../model/errors.ts";
import { type ApiError, validationFailed } from "./errors.ts";
import { humanizeKey } from "./readers.ts";

/** The 422 for a ValidationError. */
export function validationErrorResponse(error: ValidationError): ApiError {
  const reasons = Object.entries(error.details).flatMap(([field, entries]) =>
    // Errors on the whole record (Rails' `base`) read as their message alone.
    entries.map((entry) =>
      field === "base" ? entry.description : `${humanizeKey(field)} ${entry.description}`
    )
  );
  return validationFailed(reasons.join(", "), { details: error.details });
}

/** Runs `fn`, answering a ValidationError it throws with the 422. */
export async function withValidation<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ValidationError) throw validationErrorResponse(error);
    throw error;
  }
}
