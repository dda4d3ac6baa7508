/**
 * Outgoing e-mail. With `SMTP_URL` set, messages go through that relay;
 * without it they are written as `.eml` files under `${dataDir}/mail/`, so a
 * single-process install (and the tests) can read what would have been sent
 * and nothing is silently lost.
 *
 * Both paths build the message with nodemailer, so the file is exactly the
 * RFC 5322 message the relay would have received. It is imported on the
 * first message, not at start: about 13 MiB of RSS that most processes
 * never need.
 */
// @ts-types="@types/nodemailer"
import type nodemailerModule from "nodemailer";
import { join } from "node:path";
import { getLogger } from "@logtape/logtape";
import type { Config } from "../../config.ts";

const logger = getLogger(["rookery", "mail"]);

/** One message to one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra header fields (List-Unsubscribe and the like). */
  headers?: Record<string, string>;
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

type Nodemailer = typeof nodemailerModule;
type Transport = ReturnType<Nodemailer["createTransport"]>;

/** nodemailer, imported at the first message (the module registry keeps it). */
async function loadNodemailer(): Promise<Nodemailer> {
  return (await import("nodemailer")).default as Nodemailer;
}

/** Builds the message as bytes, for the file mode. */
const makeFileBuilder = (nodemailer: Nodemailer) =>
  nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });

/**
 * The process's transports (process/core.ts holds one): one per relay URL,
 * since nodemailer keeps connections and settings in it, and the file
 * mode's message builder.
 */
export class Mailer {
  readonly #smtp = new Map<string, Transport>();
  #fileBuilder: ReturnType<typeof makeFileBuilder> | undefined;

  async smtpTransport(url: string): Promise<Transport> {
    let transport = this.#smtp.get(url);
    if (!transport) {
      const nodemailer = await loadNodemailer();
      transport = this.#smtp.get(url) ?? nodemailer.createTransport(url);
      this.#smtp.set(url, transport);
    }
    return transport;
  }

  async fileTransport(): Promise<ReturnType<typeof makeFileBuilder>> {
    return this.#fileBuilder ??= makeFileBuilder(await loadNodemailer());
  }

  /** Closes the relays' connections (the process is closing). */
  close(): void {
    for (const transport of this.#smtp.values()) transport.close();
    this.#smtp.clear();
  }
}

/** What sending needs: the mail settings and the process core's transports. */
export interface MailContext {
  readonly config: Pick<Config, "dataDir" | "mail" | "instance">;
  readonly core: { readonly mailer: Mailer };
}

/** Sends a message through the relay, or writes it under the mail directory. */
export async function sendMail(app: MailContext, message: MailMessage): Promise<MailReceipt> {
  const { config, core: { mailer } } = app;
  const envelope = {
    from: { name: config.instance.title, address: config.mail.from },
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    headers: message.headers,
  };
  if (config.mail.smtpUrl) {
    const info = await (await mailer.smtpTransport(config.mail.smtpUrl)).sendMail(envelope);
    logger.info("Sent {subject} to {to} ({messageId}).", {
      subject: message.subject,
      to: message.to,
      messageId: info.messageId,
    });
    return { messageId: info.messageId };
  }
  const info = await (await mailer.fileTransport()).sendMail(envelope);
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

/**
 * Mails a short notice to a user (a changed password, an address change
 * asked for). A failure is logged, not thrown: what it tells of has happened
 * either way.
 */
export async function sendNotice(
  app: MailContext,
  to: string,
  subject: string,
  lines: string[],
): Promise<void> {
  const { config } = app;
  try {
    await sendMail(app, {
      to,
      subject: `${config.instance.title}: ${subject}`,
      text: [...lines, ""].join("\n"),
    });
  } catch (error) {
    logger.error("Could not mail {subject}: {error}", { subject, error });
  }
}
