/**
 * A post's link preview: never the provider's `html` embed (no frames are
 * allowed or wanted), only its image, provider, title and description as
 * text, linking the page.
 */
import type { FC } from "hono/jsx";
import type { PreviewCardJson } from "../../../api/entities/status.ts";

export const LinkCard: FC<{ card: PreviewCardJson }> = ({ card }) => (
  <a class="link-card" href={card.url} rel="noopener nofollow">
    {card.image ? <img src={card.image} alt={card.image_description ?? ""} loading="lazy" /> : null}
    <span class="link-card-text">
      {card.provider_name ? <span class="muted">{card.provider_name}</span> : null}
      <strong>{card.title || card.url}</strong>
      {card.description ? <span>{card.description}</span> : null}
    </span>
  </a>
);
