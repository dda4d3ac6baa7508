/** Who may interact with new posts, per visibility, as presets (issue 34). */
import type { FC } from "hono/jsx";
import { CsrfField } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";

/** One select: a visibility's sub-policy, its choices and the current one. */
export interface PolicyChoice {
  /** The form field, `public[can_reply]`. */
  name: string;
  label: string;
  options: { value: string; label: string }[];
  current: string;
}

export interface VisibilityChoices {
  legend: string;
  choices: PolicyChoice[];
}

export const InteractionsPage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  groups: VisibilityChoices[];
  notice?: string;
}> = ({ instanceTitle, viewer, groups, notice }) => (
  <SettingsLayout
    title="Who may interact with your posts"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="interactions"
  >
    {notice ? <p class="notice" role="status">{notice}</p> : null}
    <p>
      For new posts of each visibility. Those you mention may always reply and favourite; what needs
      your approval waits under <a href="/settings/interaction_requests">Waiting for approval</a>.
    </p>
    <form method="post" action="/settings/interactions">
      <CsrfField token={viewer.csrfToken} />
      {groups.map((group) => (
        <fieldset>
          <legend>{group.legend}</legend>
          {group.choices.map((choice) => (
            <p>
              <label for={choice.name}>{choice.label}</label>
              <select id={choice.name} name={choice.name}>
                {choice.options.map((o) => (
                  <option value={o.value} selected={o.value === choice.current}>{o.label}</option>
                ))}
              </select>
            </p>
          ))}
        </fieldset>
      ))}
      <button type="submit">Save</button>
    </form>
    <form method="post" action="/settings/interactions/reset">
      <CsrfField token={viewer.csrfToken} />
      <button type="submit">Reset to defaults</button>
    </form>
  </SettingsLayout>
);
