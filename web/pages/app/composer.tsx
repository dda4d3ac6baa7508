/**
 * The composer (design 35 §9): a plain form posting to /statuses with the
 * API's field names, so the route reads it with the API's reader. Works
 * without script; the script adds the live counter, uploads and drafts.
 * Every render carries a fresh idempotency key, so a double submit or a
 * resubmission after "back" makes one post.
 */
import type { FC } from "hono/jsx";
import { CsrfField } from "../shell.tsx";
import type { AppViewer, ReadingPreferences } from "./layout.tsx";
import type { StatusJson } from "../../../api/entities/status.ts";
import { StatusHeader } from "../status/header.tsx";
import { StatusBody } from "../status/body.tsx";
import {
  AttachmentsField,
  type KeptMedia,
  LanguageSelect,
  PollField,
  type PollValues,
  QuotePolicySelect,
  ScheduleField,
} from "./composer_fields.tsx";

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
  quotedStatusId?: string;
  quotePolicy?: string;
  language?: string | null;
  poll?: PollValues;
  /** The `datetime-local` value typed (UTC). */
  scheduledLocal?: string;
  /** Attachments already uploaded (kept after a refusal, or the post's own). */
  media?: KeptMedia[];
}

/** The user's posting defaults (their preferences), which a new post starts from. */
export interface ComposerDefaults {
  visibility: string;
  sensitive: boolean;
  language: string | null;
  quotePolicy: string;
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
  /** The instance's limits the form shows (composerLimits). */
  limits?: ComposerLimits;
}

/** The instance's limits a composer shows: the counter's and the poll's. */
export interface ComposerLimits {
  maxCharacters: number;
  charactersPerUrl: number;
  maxPollOptions: number;
}

/** The composer's limits from the configuration's. */
export function composerLimits(limits: {
  maxStatusCharacters: number;
  charactersReservedPerUrl: number;
  maxPollOptions: number;
}): ComposerLimits {
  return {
    maxCharacters: limits.maxStatusCharacters,
    charactersPerUrl: limits.charactersReservedPerUrl,
    maxPollOptions: limits.maxPollOptions,
  };
}

const DEFAULT_LIMITS: ComposerLimits = {
  maxCharacters: 500,
  charactersPerUrl: 23,
  maxPollOptions: 4,
};

export const Composer: FC<ComposerProps> = (
  { viewer, defaults, returnTo, values = {}, error, edit, fragment, limits = DEFAULT_LIMITS },
) => (
  <form
    id="composer"
    class="composer"
    method="post"
    action={edit ? `/statuses/${edit.statusId}/update` : "/statuses"}
    enctype="multipart/form-data"
    data-max-characters={String(limits.maxCharacters)}
    data-characters-per-url={String(limits.charactersPerUrl)}
    data-enhance
    {...fragment}
  >
    <CsrfField token={viewer.csrfToken} />
    <input type="hidden" name="return_to" value={returnTo} />
    {edit ? null : <input type="hidden" name="idempotency_key" value={crypto.randomUUID()} />}
    {values.inReplyToId
      ? <input type="hidden" name="in_reply_to_id" value={values.inReplyToId} />
      : null}
    {values.quotedStatusId && !edit
      ? <input type="hidden" name="quoted_status_id" value={values.quotedStatusId} />
      : null}
    {error ? <p class="alert" role="alert" id="status-error">{error}</p> : null}
    <label for="status">What's on your mind?</label>
    <textarea
      id="status"
      name="status"
      rows={4}
      aria-describedby={error ? "status-error status-count" : "status-count"}
      aria-invalid={error ? "true" : undefined}
    >
      {values.status ?? ""}
    </textarea>
    <output id="status-count" for="status" class="hint">
      At most {limits.maxCharacters} characters (a link counts as {limits.charactersPerUrl})
    </output>
    <details class="cw-field" open={values.spoilerText ? true : undefined}>
      <summary>Content warning</summary>
      <label for="spoiler_text">Warning shown before the post</label>
      <input id="spoiler_text" name="spoiler_text" type="text" value={values.spoilerText ?? ""} />
    </details>
    <div class="options">
      {edit ? <p class="hint">The visibility of a post cannot be changed.</p> : (
        <div class="option">
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
        </div>
      )}
      {edit ? null : <QuotePolicySelect value={values.quotePolicy ?? defaults?.quotePolicy} />}
      <LanguageSelect
        value={values.language !== undefined ? values.language : defaults?.language}
      />
    </div>
    <label class="check">
      <input
        type="checkbox"
        name="sensitive"
        value="true"
        checked={values.sensitive ?? defaults?.sensitive}
      />
      Mark media as sensitive
    </label>
    <AttachmentsField kept={values.media ?? []} slots={!edit} />
    <PollField
      poll={values.poll}
      maxOptions={limits.maxPollOptions}
      note={edit ? "Tick the box to change the poll; other choices reset its votes." : undefined}
    />
    {edit ? null : <ScheduleField value={values.scheduledLocal} />}
    <button type="submit">{edit ? "Save" : "Post"}</button>
  </form>
);

/** The post a new one replies to or quotes, above the composer (no actions). */
export const ComposerTarget: FC<{
  status: StatusJson;
  kind: "reply" | "quote";
  reading?: ReadingPreferences;
}> = ({ status, kind, reading }) => (
  <section class="composer-target" aria-labelledby="composer-target">
    <h2 id="composer-target">{kind === "reply" ? "Replying to" : "Quoting"}</h2>
    <article class="status compact">
      <StatusHeader status={status} idBase={`target-${status.id}`} />
      <StatusBody status={status} nested reading={reading} />
    </article>
  </section>
);
