/**
 * What a command's refusal means for a page (staff pages, the web app): a
 * status and a message for the page's alert, the same refusals the API
 * answers with 403, 404 and 422. Anything else is a real failure and goes on
 * to the server's error handler.
 */
import { ApiError } from "../../api/errors.ts";
import { validationErrorResponse } from "../../api/validation_errors.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import { NotAllowedError } from "../../actors/moderation/account_actions.ts";

/** A refusal to show on the page: the status and the message. */
export interface Refusal {
  status: 403 | 404 | 413 | 422 | 400;
  message: string;
}

/**
 * What a command's error means for a page, or null when it is not a refusal
 * (then it is a real failure and goes on to the server's error handler).
 */
export function refusalOf(error: unknown): Refusal | null {
  if (error instanceof NotAllowedError) return { status: 403, message: error.message };
  if (error instanceof NotFoundError) return { status: 404, message: error.message };
  if (error instanceof ValidationError) {
    return { status: 422, message: validationErrorResponse(error).message };
  }
  if (error instanceof ApiError && [400, 403, 404, 413, 422].includes(error.status)) {
    return { status: error.status as Refusal["status"], message: error.message };
  }
  return null;
}

/** Runs a command; its refusal is returned, anything else is thrown on. */
export async function attempt(fn: () => Promise<unknown>): Promise<Refusal | null> {
  try {
    await fn();
    return null;
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return refusal;
  }
}
