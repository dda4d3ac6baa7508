/**
 * A confirmation before an action that cannot be undone (design 35 §10.3):
 * what happens, one POST form, and a Cancel link. Engineer B's block, mute
 * and domain-block confirmations use it too.
 */
import type { Child, FC } from "hono/jsx";
import { CsrfField } from "../shell.tsx";

export const ConfirmPage: FC<{
  action: string;
  token: string;
  returnTo: string;
  button: string;
  cancel: string;
  danger?: boolean;
  children?: Child;
}> = ({ action, token, returnTo, button, cancel, danger, children }) => (
  <form method="post" action={action} class="confirm">
    {children}
    <CsrfField token={token} />
    <input type="hidden" name="return_to" value={returnTo} />
    <div class="actions">
      <button type="submit" class={danger ? "danger" : undefined}>{button}</button>
      <a href={cancel} class="button">Cancel</a>
    </div>
  </form>
);
