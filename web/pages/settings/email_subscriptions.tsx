/** /settings/email_subscriptions: the owner's switch, the subscriber count, "remove all". */
import type { FC } from "hono/jsx";
import { CsrfField } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";

export const EmailSubscriptionsPage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  /** Null: the account may not take subscriptions. */
  state: { enabled: boolean; subscribers: number } | null;
  notice?: string;
}> = ({ instanceTitle, viewer, state, notice }) => (
  <SettingsLayout
    title="E-mail subscriptions"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="profile"
  >
    {notice ? <p class="notice" role="status">{notice}</p> : null}
    {!state ? <p>E-mail subscriptions are not available for your account on this server.</p> : (
      <>
        <p>
          Visitors can get your new public posts by e-mail (at most one mail an hour). They confirm
          their address first, and can leave from any mail. You see how many there are, never who.
        </p>
        <p>
          Subscriptions are <strong>{state.enabled ? "on" : "off"}</strong>.{" "}
          <strong>{state.subscribers}</strong> confirmed subscriber
          {state.subscribers === 1 ? "" : "s"}.
        </p>
        <form method="post" action="/settings/email_subscriptions">
          <CsrfField token={viewer.csrfToken} />
          <input type="hidden" name="enabled" value={state.enabled ? "0" : "1"} />
          <button type="submit">{state.enabled ? "Turn off" : "Turn on"}</button>
        </form>
        <form method="post" action="/settings/email_subscriptions/remove_all">
          <CsrfField token={viewer.csrfToken} />
          <button type="submit">Remove all subscribers</button>
        </form>
      </>
    )}
  </SettingsLayout>
);
