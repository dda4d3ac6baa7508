/**
 * A poll: its results (a <progress> per option carries the width, so no
 * style attribute), or, for a reader who may still vote, a form of radios or
 * checkboxes posting to /polls/:id/votes with the results behind "See
 * results". While the author hides the totals, no counts are shown.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { PollJson } from "../../../api/entities/poll.ts";
import { CsrfField } from "../shell.tsx";
import { emojifyText } from "./content.ts";

function endsText(poll: PollJson): string {
  if (poll.expired) return "Ended";
  if (!poll.expires_at) return "Open";
  return `Ends ${poll.expires_at.slice(0, 16).replace("T", " ")} UTC`;
}

export const PollResults: FC<{ poll: PollJson; idPrefix: string }> = ({ poll, idPrefix }) => {
  const total = poll.options.reduce((sum, o) => sum + (o.votes_count ?? 0), 0);
  const hidden = poll.options.some((o) => o.votes_count == null);
  const voters = poll.voters_count ?? poll.votes_count;
  return (
    <div class="poll">
      <ul>
        {poll.options.map((o, i) => {
          const pct = o.votes_count == null || total === 0
            ? 0
            : Math.round((o.votes_count / total) * 100);
          const mine = poll.own_votes?.includes(i);
          return (
            <li>
              <span id={`${idPrefix}-${i}`}>{raw(emojifyText(o.title, poll.emojis))}</span>
              {mine ? <span class="muted">(your vote)</span> : null}
              {hidden ? null : (
                <>
                  <progress aria-labelledby={`${idPrefix}-${i}`} max={100} value={pct}></progress>
                  <span class="muted">
                    {pct}% · {o.votes_count} {o.votes_count === 1 ? "vote" : "votes"}
                  </span>
                </>
              )}
            </li>
          );
        })}
      </ul>
      <p class="muted">
        {hidden
          ? "The results are shown when the poll ends."
          : `${voters} ${voters === 1 ? "person" : "people"} voted`} · {endsText(poll)}
      </p>
    </div>
  );
};

/** The vote form, for a reader who has not voted in an open poll of someone else's. */
export const PollForm: FC<{ poll: PollJson; idPrefix: string; token: string; returnTo: string }> = (
  { poll, idPrefix, token, returnTo },
) => (
  <form method="post" action={`/polls/${poll.id}/votes`} class="poll" data-enhance>
    <CsrfField token={token} />
    <input type="hidden" name="return_to" value={returnTo} />
    <fieldset>
      <legend>{poll.multiple ? "Poll, choose one or more" : "Poll, choose one"}</legend>
      {poll.options.map((o, i) => (
        <label class="check">
          <input type={poll.multiple ? "checkbox" : "radio"} name="choices[]" value={String(i)} />
          {raw(emojifyText(o.title, poll.emojis))}
        </label>
      ))}
    </fieldset>
    <button type="submit">Vote</button>
    <details>
      <summary>See results</summary>
      <PollResults poll={poll} idPrefix={idPrefix} />
    </details>
  </form>
);
