import { renderToString } from 'preact-render-to-string';
import type { MailKind } from '../../db/schema.reader-login.ts';

/** A mail's parts: the subject, a plain-text part and an HTML part (preact escapes every text in it). */
export interface MailMessage {
  subject: string;
  text: string;
  html: string;
}

export interface LinkMail {
  kind: MailKind;
  projectName: string;
  link: string;
  /** when the link stops working */
  expires: Date;
}

const when = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The mail that carries a sign-in link: one asked for at the login page, or an invitation. */
export function linkMessage(mail: LinkMail): MailMessage {
  const invitation = mail.kind === 'invitation';
  const subject = invitation
    ? `You are invited to read the ${mail.projectName} documentation`
    : `Your sign-in link for the ${mail.projectName} documentation`;
  const intro = invitation
    ? `You have been given access to the ${mail.projectName} documentation.`
    : `Someone, probably you, asked to sign in to the ${mail.projectName} documentation.`;
  const use = `Open this link to sign in (it works once, until ${when(mail.expires)}):`;
  const ignore = invitation
    ? 'If you did not expect this invitation, you can ignore this e-mail.'
    : 'If you did not ask for it, you can ignore this e-mail: nobody can sign in without the link.';
  const text = `${intro}\n\n${use}\n\n${mail.link}\n\n${ignore}\n`;
  const html = `<!doctype html>${renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{subject}</title>
      </head>
      <body>
        <p>{intro}</p>
        <p>{use}</p>
        <p>
          <a href={mail.link}>Sign in to the {mail.projectName} documentation</a>
        </p>
        <p>{ignore}</p>
      </body>
    </html>,
  )}`;
  return { subject, text, html };
}
