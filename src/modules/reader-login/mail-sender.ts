import nodemailer, { type Transporter } from 'nodemailer';
import type { JobLog } from '../../jobs/job.ts';
import type { MailMessage } from './mail-message.tsx';

/** The longest a mail server may take to connect, greet, or answer a command (ms). */
const SMTP_TIMEOUT_MS = 10_000;

/** Sends a mail, or fails with the reason; the outbox retries it. */
export interface MailSender {
  send(to: string, message: MailMessage, log: JobLog): Promise<void>;
  close(): void;
}

/** SMTP through nodemailer (SMTP_URL), a connection per mail: the outbox sends few, one at a time. */
export function smtpSender(url: string, from: string): MailSender {
  const transport: Transporter = nodemailer.createTransport({
    url,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  return {
    async send(to, message) {
      await transport.sendMail({
        from,
        to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    },
    close: () => transport.close(),
  };
}

/** No SMTP_URL (development): the mail, link and all, goes to the log at `warn`. */
export const logSender: MailSender = {
  async send(to, message, log) {
    log.warn(
      { to, subject: message.subject, text: message.text },
      'SMTP_URL is not set: the mail is written here instead of sent',
    );
  },
  close: () => undefined,
};
