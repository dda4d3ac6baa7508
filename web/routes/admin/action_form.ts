/**
 * The action form of the account page and of the report page (both post a
 * POST …/action of the admin API's shape): what it sent, to show again when
 * the action is refused, and the action's input, read as the admin API
 * reads it.
 */
import type { Params } from "../../../api/params.ts";
import { readBoolean, readString } from "../../../api/readers.ts";
import type { ActionInput } from "../../../actors/moderation/account_actions.ts";
import { WARNING_TEXT_MAX } from "../../../actors/moderation/account_actions.ts";
import type { ActionDraft } from "../../pages/admin/components.tsx";

/**
 * The form's fields as sent, for the page after a refusal (cut short: an
 * oversized value is shown only as far as it helps to shorten it).
 */
export function actionDraftOf(p: Params): ActionDraft {
  const raw = (key: string) => (typeof p[key] === "string" ? (p[key] as string) : undefined);
  const text = raw("text");
  return {
    type: raw("type")?.slice(0, 64),
    text: text === undefined ? undefined : [...text].slice(0, 2 * WARNING_TEXT_MAX).join(""),
    // An unticked box is absent from the form.
    sendEmail: raw("send_email_notification") !== undefined,
    reportId: raw("report_id")?.slice(0, 64),
  };
}

/** The action's input; a 422 ApiError for a field of the wrong kind or size. */
export function readActionInput(p: Params): ActionInput {
  return {
    type: readString(p, "type", { maxLength: 64 }) ?? "",
    reportId: readString(p, "report_id", { maxLength: 64 }),
    text: readString(p, "text", { allowBlank: true }),
    // An unticked box is absent from the form: no e-mail then (the API's default is to send).
    sendEmailNotification: readBoolean(p, "send_email_notification") ?? false,
  };
}
