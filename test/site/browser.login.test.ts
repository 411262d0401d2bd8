import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.ts';
import type { SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { describeInBrowser } from './browser-helpers.ts';
import { quire, useTempFiles } from './site-cli.ts';
import { sitePage } from './site-helpers.ts';
import {
  grant,
  hs256Secret,
  mailedLink,
  privateSite,
  revoke,
  startMailingSite,
  type MailingSite,
} from './login-helpers.ts';

const tempFile = useTempFiles();

describeInBrowser('a private site in Chromium: signing in, reading, signing out', () => {
  let browser: Browser;
  let t: TestApp;
  let smtp: SmtpReceiver;
  let origin = '';
  let served: MailingSite | undefined;

  beforeAll(async () => {
    served = await startMailingSite();
    ({ browser, t, smtp, origin } = served);
  }, 60_000);
  afterAll(() => served?.close());

  /** A private site with two pages that link to each other through the navigation. */
  async function site() {
    const w = await privateSite(t.deps, t.app);
    await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Other plans',
      slug: 'other',
      content: 'More.',
    });
    return w;
  }

  it('signs in by a mailed link, reads, and signs out', async () => {
    const w = await site();
    const email = 'browser-reader@example.com';
    await grant(t.app, w.key, email);
    await t.deps.mailDispatcher.drain();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}${w.root}/v1/guides/secret`);
      expect(new URL(page.url()).pathname).toBe(`${w.root}/login`);
      await page.fill('#login-email', email);
      await page.click('form.login-form button[type=submit]');
      await expect.poll(() => page.textContent('main')).toContain('a sign-in link is on its way');
      const link = await mailedLink(t.deps, smtp, email);
      await page.goto(link.toString());
      expect(new URL(page.url()).pathname).toBe(`${w.root}/v1/guides/secret`);
      expect(await page.textContent('h1')).toBe('Secret plans');
      await page.click(`a[href="${w.root}/v1/guides/other"]`);
      await page.waitForURL(`**${w.root}/v1/guides/other`);
      expect(await page.textContent('h1')).toBe('Other plans');
      await page.click('form.sign-out button');
      await page.waitForURL(`**${w.root}/login`);
      await page.goto(`${origin}${w.root}/v1/guides/secret`);
      expect(new URL(page.url()).pathname).toBe(`${w.root}/login`);
      const cookies = await context.cookies();
      expect(cookies.filter((c) => c.name === 'quire_reader')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('ends an open session at the next click once the grant is revoked', async () => {
    const w = await site();
    const email = 'revoked-reader@example.com';
    await grant(t.app, w.key, email);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // The invitation names the origin the grant's API request reached (here, an injected one).
      const link = await mailedLink(t.deps, smtp, email);
      await page.goto(`${origin}${link.pathname}${link.search}`);
      expect(new URL(page.url()).pathname).toBe(`${w.root}/`);
      await page.goto(`${origin}${w.root}/v1/guides/secret`);
      expect(await page.textContent('h1')).toBe('Secret plans');
      const cookie = (await context.cookies()).find((c) => c.name === 'quire_reader');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: w.root });
      await revoke(t.app, w.key, email);
      await page.click(`a[href="${w.root}/v1/guides/other"]`);
      await page.waitForURL(`**${w.root}/login?next=**`);
      expect(await page.textContent('h1')).toBe('Sign in');
    } finally {
      await context.close();
    }
  });

  it('signs in from a page of the customer’s own application by JWT', async () => {
    const w = await site();
    const secret = hs256Secret(32);
    const set = await quire(
      t.deps,
      'project',
      'update',
      String(w.project.id),
      '--reader-jwt-key',
      tempFile(secret, 'key'),
    );
    expect(set.code, set.stderr).toBe(0);
    const token = await new SignJWT({ email: 'customer@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(t.clock.now() / 1000) + 600)
      .sign(secret);
    const target = `${origin}${w.root}/login/jwt?token=${token}&next=${encodeURIComponent('/v1/guides/other')}`;
    // The customer's application: another server, on another port, linking its signed-in user over.
    const app = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><title>Customer app</title><a id="docs" href="${target}">Documentation</a>`,
      );
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(app.address() as AddressInfo).port}/`);
      await page.click('#docs');
      await page.waitForURL(`**${w.root}/v1/guides/other`);
      expect(await page.textContent('h1')).toBe('Other plans');
      await page.click(`a[href="${w.root}/v1/guides/secret"]`);
      await page.waitForURL(`**${w.root}/v1/guides/secret`);
      expect(await page.textContent('h1')).toBe('Secret plans');
    } finally {
      await context.close();
      await new Promise((resolve) => app.close(resolve));
    }
  });
});
