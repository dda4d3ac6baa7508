/**
 * The composer's optional fields (design 35 §9.1, §9.2), each with the
 * API's parameter names so the route reads them with the API's readers:
 * language, poll, schedule, and the attachments: four file slots with
 * their alt text for a browser without script, and the attachments already
 * uploaded (kept after a refusal, uploaded by the script, or those of a
 * post being edited or redrafted), each with its alt text.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import ISO6391 from "iso-639-1";
import { escapeHtml } from "../../../actors/formatting/escape_html.ts";

/** How many files a post may carry (the instance's `max_media_attachments`). */
export const MAX_ATTACHMENTS = 4;

/** Poll durations offered, in seconds (Mastodon's web app's choices). */
const POLL_DURATIONS = [
  [300, "5 minutes"],
  [1800, "30 minutes"],
  [3600, "1 hour"],
  [21600, "6 hours"],
  [86400, "1 day"],
  [259200, "3 days"],
  [604800, "7 days"],
] as const;

/**
 * The language options, escaped once per process (pure data): 184 options
 * rendered through JSX on every page with a composer were a measurable part
 * of the home page's cost. Each entry: the code, the option, the option selected.
 */
const LANGUAGE_OPTIONS = ISO6391.getAllCodes()
  .map((code) => [code, ISO6391.getNativeName(code) || ISO6391.getName(code)] as const)
  .sort((a, b) => a[0].localeCompare(b[0]))
  .map(([code, name]) => {
    const open = `<option value="${escapeHtml(code)}" lang="${escapeHtml(code)}"`;
    const label = `>${escapeHtml(name)} (${escapeHtml(code)})</option>`;
    return [code, open + label, `${open} selected${label}`] as const;
  });

export const LanguageSelect: FC<{ value?: string | null }> = ({ value }) => (
  <div class="option">
    <label for="language">Language</label>
    <select id="language" name="language">
      <option value="" selected={!value}>Not set</option>
      {raw(
        LANGUAGE_OPTIONS.map(([code, plain, selected]) => code === value ? selected : plain)
          .join(""),
      )}
    </select>
  </div>
);

const QUOTE_POLICY_LABELS = [
  ["public", "Anyone"],
  ["followers", "Followers only"],
  ["nobody", "Just me"],
] as const;

/** Who may quote the post (`quote_approval_policy`); private and direct posts: the author only. */
export const QuotePolicySelect: FC<{ value?: string }> = ({ value }) => (
  <div class="option">
    <label for="quote_approval_policy">Who can quote</label>
    <select id="quote_approval_policy" name="quote_approval_policy">
      {QUOTE_POLICY_LABELS.map(([policy, label]) => (
        <option value={policy} selected={(value ?? "public") === policy}>{label}</option>
      ))}
    </select>
  </div>
);

/** A poll as typed: the options (blanks kept for the slots) and its settings. */
export interface PollValues {
  enabled: boolean;
  options: string[];
  expiresIn?: number;
  multiple?: boolean;
  hideTotals?: boolean;
}

export const PollField: FC<{ poll?: PollValues; maxOptions: number; note?: string }> = (
  { poll, maxOptions, note },
) => {
  const options = Array.from({ length: maxOptions }, (_, i) => poll?.options[i] ?? "");
  const expiresIn = poll?.expiresIn ?? 86400;
  return (
    <details class="poll-field" open={poll?.enabled || undefined}>
      <summary>Poll</summary>
      {note ? <p class="hint">{note}</p> : null}
      <label class="check">
        <input type="checkbox" name="poll_enabled" value="true" checked={poll?.enabled} />
        Add this poll to the post
      </label>
      {options.map((option, i) => (
        <>
          <label for={`poll-option-${i}`}>Choice {i + 1}</label>
          <input id={`poll-option-${i}`} type="text" name="poll[options][]" value={option} />
        </>
      ))}
      <label for="poll-expires">Open for</label>
      <select id="poll-expires" name="poll[expires_in]">
        {POLL_DURATIONS.map(([seconds, label]) => (
          <option value={String(seconds)} selected={seconds === expiresIn}>{label}</option>
        ))}
      </select>
      <label class="check">
        <input type="checkbox" name="poll[multiple]" value="true" checked={poll?.multiple} />
        Allow several choices
      </label>
      <label class="check">
        <input type="checkbox" name="poll[hide_totals]" value="true" checked={poll?.hideTotals} />
        Hide the counts until the poll ends
      </label>
    </details>
  );
};

/** `scheduled_local`: a `datetime-local` value read as UTC (the script may send `scheduled_at`). */
export const ScheduleField: FC<{ value?: string }> = ({ value }) => (
  <details class="schedule-field" open={value ? true : undefined}>
    <summary>Schedule</summary>
    <label for="scheduled_local">Publish at (UTC)</label>
    <input id="scheduled_local" type="datetime-local" name="scheduled_local" value={value ?? ""} />
    <p class="hint">At least five minutes from now. Leave empty to publish at once.</p>
  </details>
);

/** An attachment already uploaded, as the composer keeps it. */
export interface KeptMedia {
  id: string;
  previewUrl: string | null;
  description: string;
  processing: boolean;
}

/**
 * One uploaded attachment: its id (sent as `media_ids[]`), a preview, and
 * its alt text (`media_attributes[<id>][description]`, applied at post
 * time). Also the fragment POST /media answers the script.
 */
export const AttachmentItem: FC<{
  media: KeptMedia;
  fragment?: Record<`data-${string}`, string>;
}> = ({ media, fragment }) => (
  <li class="attachment" id={`attachment-${media.id}`} {...fragment}>
    <input type="hidden" name="media_ids[]" value={media.id} />
    <input type="hidden" name={`media_attributes[${media.id}][id]`} value={media.id} />
    {media.previewUrl
      ? <img src={media.previewUrl} alt="" width={96} height={96} />
      : <span class="muted">{media.processing ? "Processing…" : "No preview"}</span>}
    <label for={`alt-${media.id}`}>Alt text</label>
    <textarea id={`alt-${media.id}`} name={`media_attributes[${media.id}][description]`} rows={2}>
      {media.description}
    </textarea>
  </li>
);

/** The attachments: those kept, then empty slots for new files up to the limit. */
export const AttachmentsField: FC<{ kept: KeptMedia[]; slots: boolean }> = (
  { kept, slots },
) => {
  const free = slots ? Math.max(0, MAX_ATTACHMENTS - kept.length) : 0;
  return (
    <details class="attachments-field" open={kept.length > 0 || undefined}>
      <summary>Media{kept.length ? ` (${kept.length})` : ""}</summary>
      <fieldset class="attachments">
        <legend>Media (up to {MAX_ATTACHMENTS})</legend>
        <ul class="attachment-list" id="attachments">
          {kept.map((m) => <AttachmentItem key={m.id} media={m} />)}
        </ul>
        {Array.from({ length: free }, (_, i) => (
          <div class="slot">
            <label for={`media-${i}-file`}>File {kept.length + i + 1}</label>
            <input
              id={`media-${i}-file`}
              type="file"
              name={`media[${i}][file]`}
              accept="image/*,video/*,audio/*"
            />
            <label for={`media-${i}-description`}>Alt text for file {kept.length + i + 1}</label>
            <textarea id={`media-${i}-description`} name={`media[${i}][description]`} rows={2} />
          </div>
        ))}
      </fieldset>
    </details>
  );
};
