/**
 * Outgoing e-mail. With `SMTP_URL` set, messages go through that relay;
 * without it they are written as `.eml` files under `${dataDir}/mail/`, so a
 * single-process install (and the tests) can read what would have been sent
 * and nothing is silently lost.
 *
 * Both paths build the message with nodemailer, so the file is exactly the
 * RFC 5322 message the relay would have received.
 */
// @ts-types="@types/nodemailer"
import nodemailer from "nodemailer";
import { join } from "node:path";
import { getLogger } from "@logtape/logtape";
import type { Config } from "../config.ts";

const logger = getLogger(["rookery", "mail"]);

/** One message to one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** What the mailer reports about a sent (or written) message. */
export interface MailReceipt {
  messageId: string;
  /** Where the message was written, in file mode. */
  file?: string;
}

/** The folder that holds `.eml` files when no SMTP relay is configured. */
export function mailDirectory(config: Pick<Config, "dataDir">): string {
  return join(config.dataDir, "mail");
}

type Transport = ReturnType<typeof nodemailer.createTransport>;
// One transport per relay URL: nodemailer keeps connections and settings in it.
const smtpTransports = new Map<string, Transport>();

function smtpTransport(url: string): Transport {
  let transport = smtpTransports.get(url);
  if (!transport) smtpTransports.set(url, transport = nodemailer.createTransport(url));
  return transport;
}

const fileBuilder = nodemailer.createTransport({
  streamTransport: true,
  buffer: true,
  newline: "unix",
});

/** Sends a message through the relay, or writes it under the mail directory. */
export async function sendMail(
  config: Pick<Config, "dataDir" | "mail" | "instance">,
  message: MailMessage,
): Promise<MailReceipt> {
  const envelope = {
    from: { name: config.instance.title, address: config.mail.from },
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
  };
  if (config.mail.smtpUrl) {
    const info = await smtpTransport(config.mail.smtpUrl).sendMail(envelope);
    logger.info("Sent {subject} to {to} ({messageId}).", {
      subject: message.subject,
      to: message.to,
      messageId: info.messageId,
    });
    return { messageId: info.messageId };
  }
  const info = await fileBuilder.sendMail(envelope);
  const dir = mailDirectory(config);
  await Deno.mkdir(dir, { recursive: true });
  // Time first so that a directory listing sorts oldest to newest.
  const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${crypto.randomUUID()}.eml`;
  const file = join(dir, name);
  await Deno.writeFile(file, info.message as Uint8Array, { mode: 0o600 });
  logger.info("Wrote {subject} for {to} to {file} (no SMTP_URL configured).", {
    subject: message.subject,
    to: message.to,
    file,
  });
  return { messageId: info.messageId, file };
}
