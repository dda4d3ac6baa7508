/**
 * A quoted post inside the quoting one: the quoted header and body when the
 * quote is accepted and the reader may see it (one level: a quote inside it
 * is a link), otherwise one muted line saying why it is not shown, in
 * Mastodon 4.5's words for each state.
 */
import type { FC } from "hono/jsx";
import type { QuoteJson, StatusJson } from "../../../api/entities/status.ts";
import { statusPath } from "./links.ts";

const STATE_WORDS: Record<string, string> = {
  pending: "Quote pending approval",
  rejected: "The author removed this quote",
  revoked: "The author removed this quote",
  deleted: "Post deleted",
  unauthorized: "Post not visible to you",
  blocked_account: "Hidden because you block its author",
  blocked_domain: "Hidden because you block its server",
  muted_account: "Hidden because you mute its author",
};

/** The quoted post, or why it is not shown; `Body` renders it (body.tsx, which imports this). */
export const QuotedStatus: FC<{
  quote: QuoteJson;
  renderQuoted: (status: StatusJson) => unknown;
}> = ({ quote, renderQuoted }) => {
  const quoted = "quoted_status" in quote ? quote.quoted_status : null;
  if (quote.state === "accepted" && quoted) {
    return (
      <blockquote class="quote" cite={statusPath(quoted)}>
        {renderQuoted(quoted)}
      </blockquote>
    );
  }
  // One level only, or a quoted post the entity did not include.
  if (quote.state === "accepted") return <p class="quote muted">Quoted post</p>;
  return <p class="quote muted">{STATE_WORDS[quote.state] ?? "Quoted post not shown"}</p>;
};
