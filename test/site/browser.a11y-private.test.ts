import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.ts';
import type { SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { DEVICES, checkAccessibility } from './a11y-helpers.ts';
import { axeViolations, describeInBrowser, seriousOnes } from './browser-helpers.ts';
import { grant, privateSite, signIn, startMailingSite, type MailingSite } from './login-helpers.ts';

/** A private site's own pages get the same accessibility check as a public site's (site.md §6, §8). */
describeInBrowser('a private site in Chromium: accessibility of its own pages (axe-core)', () => {
  let browser: Browser;
  let t: TestApp;
  let smtp: SmtpReceiver;
  let origin = '';
  let served: MailingSite | undefined;
  let root = '';
  let session = '';
  const email = 'a11y-reader@example.com';

  beforeAll(async () => {
    served = await startMailingSite();
    ({ browser, t, smtp, origin } = served);
    const w = await privateSite(t.deps, t.app);
    root = w.root;
    await grant(t.app, w.key, email);
    session = await signIn(t.deps, t.app, smtp, root, email);
  }, 60_000);
  afterAll(() => served?.close());

  for (const device of DEVICES) {
    it(`the login page: no serious or critical violation, light and dark, ${device.label}`, async () => {
      const target = {
        name: 'login',
        url: `${origin}${root}/login?next=%2Fv1%2Fguides%2Fsecret`,
        status: 200,
      };
      await checkAccessibility(browser, target, device);
    });

    it(`the MCP connect page of a signed-in reader: the same, ${device.label}`, async () => {
      const target = {
        name: 'MCP connect, signed in',
        url: `${origin}${root}/mcp/connect`,
        status: 200,
        cookie: session,
      };
      await checkAccessibility(browser, target, device);
    });
  }

  it('the answer to a link request: no serious or critical violation', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${origin}${root}/login`);
      await page.fill('#login-email', 'nobody@example.com');
      await page.click('form.login-form button[type=submit]');
      await expect.poll(() => page.textContent('main')).toContain('a sign-in link is on its way');
      expect(seriousOnes(await axeViolations(page))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
