/**
 * The Notes (or Questions) of many local statuses at once, for collection
 * pages (outbox, featured): the same documents the object dispatcher serves
 * and deliveries send (note.ts plus note_extras.ts), read with one query per
 * kind of row for the whole page instead of several per status.
 */
import type { Context } from "@fedify/fedify";
import type { Note, Question } from "@fedify/vocab";
import type { AppContext } from "../../context.ts";
import { buildNote, loadNotesData, type StatusRow } from "./note.ts";
import { loadNoteExtras, withNoteExtras } from "./note_extras.ts";

/**
 * The Note of each status, keyed by status id; a status whose author is
 * missing has none. The statuses must be local originals (not boosts).
 */
export async function buildNotes(
  ctx: Context<AppContext>,
  rows: readonly StatusRow[],
): Promise<Map<string, Note | Question>> {
  const db = ctx.data.database.db;
  const [data, extras] = await Promise.all([
    loadNotesData(db, ctx.data.config.origin, rows),
    loadNoteExtras(db, rows),
  ]);
  const notes = new Map<string, Note | Question>();
  for (const status of rows) {
    const d = data.get(status.id);
    if (!d) continue;
    const note = buildNote(ctx, status, d);
    notes.set(status.id, await withNoteExtras(ctx, status, note, extras.get(status.id)));
  }
  return notes;
}
