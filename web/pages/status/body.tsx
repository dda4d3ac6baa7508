/**
 * What a post says, from its Status entity (so exactly what a client is
 * told, held replies' notes and filters included): the text, poll,
 * attachments, link preview and quoted post, under a <details> when it has
 * a content warning or matched a "warn" filter. Media go behind their own
 * disclosure when sensitive or matched by a "blur" filter. No script is
 * needed for any of it.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { StatusJson } from "../../../api/entities/status.ts";
import { emojifyText, renderContent } from "./content.ts";
import { HiddenMedia, MediaGrid } from "./media.tsx";
import { PollForm, PollResults } from "./poll.tsx";
import { LinkCard } from "./card.tsx";
import { QuotedStatus } from "./quote.tsx";
import { StatusHeader } from "./header.tsx";
import type { ReadingPreferences } from "../app/layout.tsx";

/** What a form inside the body needs (the vote), for a signed-in reader. */
export interface BodyForms {
  token: string;
  returnTo: string;
  viewerAccountId: string;
}

/** The titles of the filters of an action that matched the post. */
function filterTitles(status: StatusJson, action: string): string[] {
  return (status.filtered ?? [])
    .filter((r) => r.filter.filter_action === action)
    .map((r) => r.filter.title);
}

const Media: FC<{ status: StatusJson; blurred: boolean; reading?: ReadingPreferences }> = (
  { status, blurred, reading },
) => {
  const media = status.media_attachments;
  if (media.length === 0) return null;
  if (blurred) return <HiddenMedia media={media} label="Hidden by a filter" />;
  if (reading?.displayMedia === "hide_all") return <HiddenMedia media={media} label="Media" />;
  if (status.sensitive && reading?.displayMedia !== "show_all") {
    return <HiddenMedia media={media} label="Sensitive content" />;
  }
  return <MediaGrid media={media} />;
};

const Poll: FC<{ status: StatusJson; forms?: BodyForms }> = ({ status, forms }) => {
  const poll = status.poll!;
  const idPrefix = `poll-${status.id}`;
  const mayVote = forms && !poll.expired && !poll.voted &&
    status.account.id !== forms.viewerAccountId;
  return mayVote
    ? <PollForm poll={poll} idPrefix={idPrefix} token={forms.token} returnTo={forms.returnTo} />
    : <PollResults poll={poll} idPrefix={idPrefix} />;
};

/** A quoted post: its author and body, one level deep (no forms, no nested quote). */
const quotedRenderer = (reading?: ReadingPreferences) => (quoted: StatusJson) => (
  <>
    <StatusHeader status={quoted} idBase={`quoted-${quoted.id}`} />
    <StatusBody status={quoted} nested reading={reading} />
  </>
);

/** The post's body; `nested` for a quoted post (its own quote is a line, not a post). */
export const StatusBody: FC<{
  status: StatusJson;
  forms?: BodyForms;
  nested?: boolean;
  reading?: ReadingPreferences;
}> = ({ status, forms, nested, reading }) => {
  const inner = (
    <>
      <div class="content" lang={status.language ?? undefined} dir="auto">
        {raw(renderContent(status))}
      </div>
      {status.poll ? <Poll status={status} forms={nested ? undefined : forms} /> : null}
      <Media
        status={status}
        blurred={filterTitles(status, "blur").length > 0}
        reading={reading}
      />
      {status.card && status.media_attachments.length === 0 && !status.poll
        ? <LinkCard card={status.card} />
        : null}
      {status.quote
        ? (
          <QuotedStatus
            quote={nested ? { state: status.quote.state, quoted_status_id: null } : status.quote}
            renderQuoted={quotedRenderer(reading)}
          />
        )
        : null}
    </>
  );
  const withWarning = status.spoiler_text
    ? (
      <details class="cw" open={reading?.expandSpoilers || undefined}>
        <summary>
          <span dir="auto">{raw(emojifyText(status.spoiler_text, status.emojis))}</span>{" "}
          <span class="muted">Show more</span>
        </summary>
        {inner}
      </details>
    )
    : inner;
  const warned = filterTitles(status, "warn");
  return warned.length === 0 ? withWarning : (
    <details class="filtered">
      <summary>Filtered: {warned.join(", ")}</summary>
      {withWarning}
    </details>
  );
};
