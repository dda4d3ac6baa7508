/**
 * Viewers' flags (db/queries/stream_viewers.ts's viewerFlags rows) as view
 * keys: each viewer's flags as `kind + value` entries, sorted and joined by
 * newlines. Viewers with the same key see a status the same way, so
 * render.ts serializes it once per key, building the ViewerRows of a key
 * ({@link viewerRowsFrom}) once for the whole group.
 */
import { emptyViewerRows, type ViewerRows } from "../entities/status_hydration.ts";
import type { ViewerFlagRow } from "../../db/queries/stream_viewers.ts";

/** The flag kinds of viewerFlags that are plain lists of status (or account) ids. */
const ID_LISTS: Record<
  string,
  "favourited" | "reblogged" | "bookmarked" | "pinned" | "muted" | "followed" | "followers"
> = {
  f: "favourited",
  r: "reblogged",
  b: "bookmarked",
  p: "pinned",
  m: "muted",
  o: "followed",
  w: "followers",
};

/** What one flags statement says, by viewer and for everyone. */
export interface ViewKeys {
  /** The quotes shown, the same for every viewer. */
  quotes: NonNullable<ViewerRows["quotes"]>;
  /** The shown statuses' authors. */
  authors: Set<string>;
  /** A viewer's key (undefined: no flag at all). */
  keyOf(viewer: string): string | undefined;
}

/**
 * The view keys of one statement's rows. The rows are sorted first, so each
 * viewer's entries come in order and a viewer with one flag holds the
 * row's own string. Following an author whose policies ask (`o`) comes as
 * its complement (`F` names the author, `O` who does not follow it): a
 * viewer without other flags who follows them all (after a post, nearly
 * every viewer) gets one shared key, with no per-viewer string or map
 * entry; 10,000 followers of an author share one key, built and hashed once.
 */
export function viewKeys(flags: readonly ViewerFlagRow[]): ViewKeys {
  const quotes: ViewKeys["quotes"] = [];
  const byViewer = new Map<string, string>();
  const authors = new Set<string>();
  /** Authors whose followers are asked about, and who among the viewers does not follow each. */
  const asked: string[] = [];
  const notFollowing = new Map<string, Set<string>>();
  const sorted = flags.map((f) => ({ ...f, entry: f.k + f.x }))
    .sort((a, b) => a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0);
  for (const { k, x, vs, entry } of sorted) {
    const ids = String(vs).split(",");
    if (k === "A") {
      authors.add(x);
    } else if (k === "F") {
      asked.push(x);
    } else if (k === "O") {
      notFollowing.set(x, new Set(ids));
    } else if (k === "Q") {
      const at = x.indexOf(":");
      const quoted = x.slice(at + 1);
      for (const statusId of ids) {
        quotes.push({ statusId, state: x.slice(0, at), quotedStatusId: quoted || null });
      }
    } else {
      for (let i = 0; i < ids.length; i++) {
        const key = byViewer.get(ids[i]);
        byViewer.set(ids[i], key === undefined ? entry : `${key}\n${entry}`);
      }
    }
  }
  if (asked.length === 0) return { quotes, authors, keyOf: (viewer) => byViewer.get(viewer) };
  const followsAll = asked.map((x) => `o${x}`).sort().join("\n");
  const exceptions = new Set<string>();
  for (const ids of notFollowing.values()) for (const id of ids) exceptions.add(id);
  const keyOf = (viewer: string): string | undefined => {
    const own = byViewer.get(viewer);
    if (own === undefined && !exceptions.has(viewer)) return followsAll;
    const entries = own === undefined ? [] : own.split("\n");
    for (const x of asked) if (!notFollowing.get(x)?.has(viewer)) entries.push(`o${x}`);
    return entries.length === 0 ? undefined : entries.sort().join("\n");
  };
  return { quotes, authors, keyOf };
}

/** The ViewerRows of a view key ({@link ViewKeys.keyOf}). */
export function viewerRowsFrom(
  key: string | undefined,
  quotes: ViewerRows["quotes"],
): ViewerRows {
  const rows = emptyViewerRows(quotes);
  for (const entry of key?.split("\n") ?? []) {
    const k = entry[0];
    const x = entry.slice(1);
    const list = ID_LISTS[k];
    if (list) {
      rows[list]!.push(x);
      continue;
    }
    switch (k) {
      case "n": {
        const [pollId, choice] = x.split(":");
        rows.votes!.push({ pollId, choice: Number(choice) });
        break;
      }
      case "q":
        rows.visibleQuoted!.push(x);
        break;
      case "u":
        rows.viewerUri = x;
        break;
    }
  }
  return rows;
}
