/**
 * The composer (design 35 §9): a plain form posting to /statuses with the
 * API's field names, so the route reads it with the API's reader. Works
 * without script; the script adds the live counter, uploads and drafts.
 * Every render carries a fresh idempotency key, so a double submit or a
 * resubmission after "back" makes one post.
 */
import type { FC } from "hono/jsx";
import { CsrfField } from "../shell.tsx";
import type { AppViewer } from "./layout.tsx";

export const VISIBILITIES = [
  ["public", "Public"],
  ["unlisted", "Quiet public"],
  ["private", "Followers only"],
  ["direct", "Mentioned people only"],
] as const;

export interface ComposerValues {
  status?: string;
  spoilerText?: string;
  visibility?: string;
  sensitive?: boolean;
  inReplyToId?: string;
}

/** The user's posting defaults (their preferences), which a new post starts from. */
export interface ComposerDefaults {
  visibility: string;
  sensitive: boolean;
}

export interface ComposerProps {
  viewer: AppViewer;
  defaults?: ComposerDefaults;
  /** Where to go after posting. */
  returnTo: string;
  values?: ComposerValues;
  /** Why the last attempt was refused (shown above the text, which is kept). */
  error?: string | null;
  /** Editing a post: the form posts to its update route; its visibility stays. */
  edit?: { statusId: string };
  /** Fragment instructions on the form (web/routes/app/fragments.ts), when sent to the script. */
  fragment?: Record<`data-${string}`, string>;
}

export const Composer: FC<ComposerProps> = (
  { viewer, defaults, returnTo, values = {}, error, edit, fragment },
) => (
  <form
    id="composer"
    class="composer"
    method="post"
    action={edit ? `/statuses/${edit.statusId}/update` : "/statuses"}
    data-enhance
    {...fragment}
  >
    <CsrfField token={viewer.csrfToken} />
    <input type="hidden" name="return_to" value={returnTo} />
    {edit ? null : <input type="hidden" name="idempotency_key" value={crypto.randomUUID()} />}
    {values.inReplyToId
      ? <input type="hidden" name="in_reply_to_id" value={values.inReplyToId} />
      : null}
    {error ? <p class="alert" role="alert" id="status-error">{error}</p> : null}
    <label for="status">What's on your mind?</label>
    <textarea
      id="status"
      name="status"
      rows={4}
      aria-describedby={error ? "status-error" : undefined}
      aria-invalid={error ? "true" : undefined}
    >
      {values.status ?? ""}
    </textarea>
    <details class="cw-field" open={values.spoilerText ? true : undefined}>
      <summary>Content warning</summary>
      <label for="spoiler_text">Warning shown before the post</label>
      <input id="spoiler_text" name="spoiler_text" type="text" value={values.spoilerText ?? ""} />
    </details>
    {edit ? <p class="hint">The visibility of a post cannot be changed.</p> : (
      <>
        <label for="visibility">Visibility</label>
        <select id="visibility" name="visibility">
          {VISIBILITIES.map(([value, label]) => (
            <option
              value={value}
              selected={(values.visibility ?? defaults?.visibility ?? "public") === value}
            >
              {label}
            </option>
          ))}
        </select>
      </>
    )}
    <label class="check">
      <input
        type="checkbox"
        name="sensitive"
        value="true"
        checked={values.sensitive ?? defaults?.sensitive}
      />
      Mark media as sensitive
    </label>
    <button type="submit">{edit ? "Save" : "Post"}</button>
  </form>
);
