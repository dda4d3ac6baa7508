/**
 * The archive page of the settings (issue 20), Mastodon's "Request your
 * archive": the request button (or when the next request is possible), and
 * the user's archives with their state, download link and expiry. Hono JSX
 * escapes every value; no script.
 */
import type { FC } from "hono/jsx";
import { CsrfField } from "../auth/layout.tsx";
import { SettingsLayout, type SettingsViewer } from "./layout.tsx";
import { type ArchiveRow, expiresAt } from "../../../actors/import_export/archive.ts";

const when = (date: Date) => date.toISOString().slice(0, 16).replace("T", " ");

/** A size as people read it (1 KB = 1,000 bytes). */
export function readableSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const ArchiveState: FC<{ archive: ArchiveRow }> = ({ archive }) => {
  switch (archive.state) {
    case "done":
      return (
        <a href={`/settings/archives/${archive.id}/download`} download>
          Download ({readableSize(archive.size ?? 0)})
        </a>
      );
    case "failed":
      return <span class="failed">Failed: no file was kept. You can request a new archive.</span>;
    default:
      return <span class="pending">Being prepared</span>;
  }
};

export const ArchivePage: FC<{
  instanceTitle: string;
  viewer: SettingsViewer;
  archives: ArchiveRow[];
  /** When the next request is possible; null: now. */
  nextAt: Date | null;
  notice?: string;
  alert?: string;
}> = ({ instanceTitle, viewer, archives, nextAt, notice, alert }) => (
  <SettingsLayout
    title="Your archive"
    instanceTitle={instanceTitle}
    viewer={viewer}
    section="archive"
  >
    {notice ? <p class="notice" role="status">{notice}</p> : null}
    {alert ? <p class="alert" role="alert">{alert}</p> : null}
    <p>
      An archive is one zip file with your posts and boosts (as ActivityPub, in the layout of
      Mastodon's archives), the media attached to them, your likes and bookmarks, and your profile
      with its avatar and header. You can request one a week; each is kept for a week.
    </p>
    {nextAt
      ? (
        // No button until then: the server would refuse it (422) anyway.
        <p class="hint next">You can request your next archive from {when(nextAt)} UTC.</p>
      )
      : (
        <form method="post" action="/settings/archive" class="archive-form">
          <CsrfField token={viewer.csrfToken} />
          <button type="submit">Request your archive</button>
        </form>
      )}
    {archives.length
      ? (
        <>
          <h2>Your archives</h2>
          <table class="archives">
            <thead>
              <tr>
                <th scope="col">Requested (UTC)</th>
                <th scope="col">Archive</th>
                <th scope="col">Deleted (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {archives.map((archive) => (
                <tr data-archive={archive.id} data-state={archive.state}>
                  <td>{when(archive.createdAt)}</td>
                  <td>
                    <ArchiveState archive={archive} />
                  </td>
                  <td>{when(expiresAt(archive))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )
      : null}
  </SettingsLayout>
);
