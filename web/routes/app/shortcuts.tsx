/**
 * The web app's /keyboard_shortcuts (design 35 §14.2): Mastodon's keys, what
 * each does, and the switch that turns the single-key ones off (kept in the
 * browser's localStorage by the script, WCAG 2.1.4). Without the script the
 * keys do nothing and the page says so.
 */
import { Hono } from "hono";
import type { FC } from "hono/jsx";
import type { ApiEnv } from "../../../api/env.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { appPage, appViewer, sendAppPage } from "./session.tsx";

const KEYS: [string, string][] = [
  ["j or ↓", "next post"],
  ["k or ↑", "previous post"],
  ["o or Enter", "open the focused post's thread"],
  ["r", "reply to the focused post"],
  ["f", "favourite the focused post"],
  ["b", "boost the focused post"],
  ["d", "bookmark the focused post"],
  ["p", "open the focused post's author"],
  ["x", "show or hide the content warning"],
  ["h", "show or hide sensitive media"],
  [".", "show new posts"],
  ["n", "write a new post"],
  ["/", "search"],
  ["Ctrl+Enter", "send the post being written"],
  ["Esc", "leave the text field"],
  ["g h", "go to Home"],
  ["g n", "go to Notifications"],
  ["g l", "go to the local timeline"],
  ["g t", "go to the federated timeline"],
  ["g d", "go to conversations"],
  ["g b", "go to bookmarks"],
  ["g f", "go to favourites"],
  ["g u", "go to your profile"],
  ["?", "this page"],
];

const KeyTable: FC = () => (
  <table>
    <caption>Keys and what they do</caption>
    <thead>
      <tr>
        <th scope="col">Key</th>
        <th scope="col">Action</th>
      </tr>
    </thead>
    <tbody>
      {KEYS.map(([key, action]) => (
        <tr>
          <td>
            <kbd>{key}</kbd>
          </td>
          <td>{action}</td>
        </tr>
      ))}
    </tbody>
  </table>
);

export function appShortcutRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/keyboard_shortcuts", appPage(), async (c) =>
    await sendAppPage(
      c,
      <AppLayout
        title="Keyboard shortcuts"
        instanceTitle={c.get("ctx").config.instance.title}
        viewer={appViewer(c)}
        current="shortcuts"
      >
        <p class="no-js-only">The shortcuts need JavaScript, which is off in this browser.</p>
        <label class="check">
          <input type="checkbox" id="shortcuts-enabled" checked disabled /> Single-key shortcuts on
        </label>
        <p>
          Single keys act only outside text fields, on the post that has the focus (move with j and
          k).
        </p>
        <KeyTable />
      </AppLayout>,
    ));
  return app;
}
