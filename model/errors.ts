/**
 * Errors that commands raise. They carry what the API needs to answer in
 * Mastodon's shape (and what the admin command line prints), without the
 * commands knowing about HTTP.
 */

export interface DetailEntry {
  error: string;
  description: string;
}

/** Input that breaks a rule; `details` follows Mastodon's registration shape. */
export class ValidationError extends Error {
  constructor(readonly details: Record<string, DetailEntry[]>) {
    super(
      Object.entries(details).map(([field, entries]) =>
        `${humanize(field)} ${entries.map((e) => e.description).join(", ")}`
      ).join(", "),
    );
  }
}

/** A record that does not exist (or that the caller may not see). */
export class NotFoundError extends Error {
  constructor(message = "Record not found") {
    super(message);
  }
}

function humanize(field: string): string {
  const s = field.replaceAll("_", " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Collects field errors and throws them together. */
export class Problems {
  readonly details: Record<string, DetailEntry[]> = {};

  add(field: string, error: string, description: string): void {
    (this.details[field] ??= []).push({ error, description });
  }

  get empty(): boolean {
    return Object.keys(this.details).length === 0;
  }

  throwIfAny(): void {
    if (!this.empty) throw new ValidationError(this.details);
  }
}
