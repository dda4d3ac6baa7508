/**
 * The object of an inbound activity when the activity embeds it, read
 * without any request. Activities by reference (`"object": "https://…"`:
 * Undo, Accept, Reject and Delete from many servers) are matched against
 * what we stored by the inbox listeners, never fetched to find out what
 * they were.
 *
 * Asking Fedify for the object with a loader that refuses to fetch works,
 * but logs "Failed to fetch" at error level with a stack trace for every
 * activity by reference (an expected case): the raw JSON is checked first.
 */
import type { Activity, Object as APObject } from "@fedify/vocab";
import { rawJson } from "../remote/statuses.ts";

const AS_OBJECT = "https://www.w3.org/ns/activitystreams#object";

/** A document loader that never fetches. */
const noFetch = () => Promise.reject(new Error("not fetched"));

/** Whether a JSON value names objects only by their ids (a string, `{id}`, or a list of them). */
function onlyReferences(value: unknown): boolean {
  if (typeof value === "string") return true;
  if (Array.isArray(value)) return value.length > 0 && value.every(onlyReferences);
  if (value && typeof value === "object") {
    const keys = Object.keys(value).filter((k) => k !== "@context");
    return keys.length === 1 && (keys[0] === "id" || keys[0] === "@id");
  }
  return false;
}

/**
 * The activity's embedded object; null when there is none or the activity
 * gives only its id (then `activity.objectId` is the reference to match).
 */
export async function embeddedObject(activity: Activity): Promise<APObject | null> {
  const raw = await rawJson(activity);
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    const value = record.object ?? record[AS_OBJECT];
    if (value == null || onlyReferences(value)) return null;
  }
  return await activity.getObject({ documentLoader: noFetch, suppressError: true })
    .catch(() => null);
}
