import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { createWorld } from '../helpers/factories.ts';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { buildTestApp, client, type TestApp } from '../helpers/test-app.ts';
import { linkIn, SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { launchChromium } from './browser-helpers.ts';
import { sitePage } from './site-helpers.ts';

/**
 * Random bytes for an HS256 key file. A key file's one trailing newline is dropped (site.md §6), so
 * a random secret must not end in 0x0a, or the key kept would be a byte shorter than the one signing.
 */
export function hs256Secret(bytes: number): Buffer {
  const secret = randomBytes(bytes);
  if (secret[bytes - 1] === 0x0a) secret[bytes - 1] = 0x0b;
  return secret;
}

/** A private project with a published page `/v1/guides/secret`; its site's root. */
export async function privateSite(deps: Deps, app: FastifyInstance) {
  const w = await createWorld(deps, { access: 'invite' });
  await sitePage(app, w.key, w.documentation.id, {
    title: 'Secret plans',
    slug: 'secret',
    content: 'The quokkaword.',
  });
  return { ...w, root: `/sites/${w.project.id}` };
}

export async function grant(app: FastifyInstance, key: string, email: string, expiresAt?: string) {
  const res = await client(app, key).post('/reader-access', { email, ...(expiresAt ? { expiresAt } : {}) });
  expect(res.statusCode, res.body).toBe(200);
}

export async function revoke(app: FastifyInstance, key: string, email: string) {
  const res = await client(app, key).patch('/reader-access', { email });
  expect(res.statusCode, res.body).toBe(200);
}

/** POST {site}/login as the form sends it, from a client address. */
export function askForLink(
  app: FastifyInstance,
  root: string,
  email: string,
  from = '10.0.0.1',
  next?: string,
) {
  const body = new URLSearchParams({ email, ...(next !== undefined ? { next } : {}) }).toString();
  return app.inject({
    method: 'POST',
    url: `${root}/login`,
    payload: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    remoteAddress: from,
  });
}

/** The `name=value` of a Set-Cookie answer, ready for a Cookie header; null when none was set. */
export function cookieOf(res: { headers: Record<string, unknown> }): string | null {
  const header = res.headers['set-cookie'];
  const first = Array.isArray(header) ? String(header[0]) : typeof header === 'string' ? header : null;
  return first === null ? null : (first.split(';')[0] ?? null);
}

/** Opens a mailed link on the app; the answer. */
export function openLink(app: FastifyInstance, link: URL) {
  return app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
}

/** Sends the outbox and answers the newest link mailed to `email`. */
export async function mailedLink(deps: Deps, smtp: SmtpReceiver, email: string): Promise<URL> {
  await deps.mailDispatcher.drain();
  const mails = smtp.to(email);
  const last = mails[mails.length - 1];
  if (last === undefined) throw new Error(`no mail to ${email}`);
  return linkIn(last);
}

/** A session cookie for `email` on a private site, by a mailed link. */
export async function signIn(
  deps: Deps,
  app: FastifyInstance,
  smtp: SmtpReceiver,
  root: string,
  email: string,
): Promise<string> {
  expect((await askForLink(app, root, email)).statusCode).toBe(200);
  const opened = await openLink(app, await mailedLink(deps, smtp, email));
  expect(opened.statusCode, opened.body).toBe(302);
  const cookie = cookieOf(opened);
  expect(cookie).not.toBeNull();
  return cookie as string;
}

/** Chromium, and a listening app that mails through a test SMTP server: a private site to sign in to. */
export interface MailingSite {
  browser: Browser;
  t: TestApp;
  smtp: SmtpReceiver;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  close(): Promise<void>;
}

export async function startMailingSite(): Promise<MailingSite> {
  const smtp = new SmtpReceiver();
  await smtp.start();
  const [browser, t] = await Promise.all([
    launchChromium(),
    buildTestApp({ env: { SMTP_URL: smtp.url, SITE_SESSION_SECRET: randomBytes(32).toString('base64') } }),
  ]);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return {
    browser,
    t,
    smtp,
    origin,
    async close() {
      await browser.close();
      await t.close();
      await smtp.stop();
    },
  };
}
