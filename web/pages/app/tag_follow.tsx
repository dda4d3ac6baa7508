/**
 * The Follow / Unfollow button of a hashtag's page (design 35 §2.1): a plain
 * form posting to /tags/:name/follow or /unfollow (web/routes/app/collections.tsx),
 * back to the tag's page, so it works without the script.
 */
import type { FC } from "hono/jsx";
import { CsrfField } from "../shell.tsx";
import { tagPath } from "../status/links.ts";

export const TagFollowForm: FC<{ name: string; following: boolean; token: string }> = (
  { name, following, token },
) => (
  <form
    method="post"
    action={`${tagPath(name)}/${following ? "unfollow" : "follow"}`}
    class="actions tag-follow"
  >
    <CsrfField token={token} />
    <input type="hidden" name="return_to" value={tagPath(name)} />
    <button type="submit" class={following ? "secondary" : undefined}>
      {following ? "Unfollow" : "Follow"} <span class="sr-only">#{name}</span>
    </button>
  </form>
);
