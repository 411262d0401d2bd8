import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A mail as the receiver got it: the envelope's recipient and the raw message, decoded for reading. */
export interface ReceivedMail {
  to: string[];
  raw: string;
  /** the message with quoted-printable undone (soft breaks joined, =XX decoded) */
  text: string;
}

/** A real SMTP server on a free port of loopback, keeping what it receives. */
export class SmtpReceiver {
  readonly mails: ReceivedMail[] = [];
  private server: SMTPServer | null = null;
  port = 0;

  async start(port = 0): Promise<this> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const text = raw
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
          this.mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The mails to one address. */
  to(email: string): ReceivedMail[] {
    return this.mails.filter((m) => m.to.includes(email));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The sign-in link of a mail, as a path of the site (origin removed). */
export function linkIn(mail: ReceivedMail): URL {
  const match =
    /https?:\/\/[^\s"<>]+\/login\/verify\?token=[A-Za-z0-9_-]+(?:&amp;|&)?(?:next=[^\s"<>]*)?/.exec(
      mail.text,
    );
  if (!match) throw new Error(`no sign-in link in the mail:\n${mail.text}`);
  return new URL(match[0].replace(/&amp;/g, '&'));
}
