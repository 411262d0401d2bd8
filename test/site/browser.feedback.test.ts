import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeInBrowser,
  launchChromium,
  serveFixtureSite,
  watchProblems,
  type ServedSite,
} from './browser-helpers.ts';
import type { FixturePage } from './fixture-project.ts';
import { storedFeedback } from './feedback-helpers.ts';

describeInBrowser('the reader site in Chromium: "Was this page helpful?"', () => {
  let browser: Browser;
  let site: ServedSite;
  let page: FixturePage;

  beforeAll(async () => {
    [browser, site] = await Promise.all([launchChromium(), serveFixtureSite()]);
    page = site.fixture.sharedPage;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  async function withPage(
    options: BrowserContextOptions,
    use: (tab: Page) => Promise<void>,
    /** a problem the test expects (the console's line for a refusal it provokes) */
    expected: (problem: string) => boolean = () => false,
  ) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    try {
      const tab = await context.newPage();
      const problems = watchProblems(tab);
      await use(tab);
      expect(problems.filter((problem) => !expected(problem))).toEqual([]);
      expect((await context.cookies()).length).toBe(0);
    } finally {
      await context.close();
    }
  }

  const feedbackOf = async () => storedFeedback(site.app.deps, site.fixture.projectId);

  it('is sent as a plain form with JavaScript off, and comes back to the thank-you note', async () => {
    const before = (await feedbackOf()).length;
    await withPage({ javaScriptEnabled: false }, async (tab) => {
      await tab.goto(site.url(page.path));
      const form = tab.locator('form.feedback-form');
      expect(await form.locator('legend').textContent()).toBe('Was this page helpful?');
      expect(await tab.locator('#feedback-thanks').isVisible()).toBe(false);
      await tab.getByLabel(/Anything to add/).fill('Sent without a script.');
      await Promise.all([
        tab.waitForURL(/#feedback-thanks$/),
        form.getByRole('button', { name: 'No' }).click(),
      ]);
      expect(new URL(tab.url()).pathname).toBe(`${site.rootPath}${page.path}`);
      await tab.locator('#feedback-thanks').waitFor({ state: 'visible' });
      expect(await tab.locator('#feedback-thanks').textContent()).toBe('Thank you for your feedback.');
      expect(await form.isVisible()).toBe(false);
    });
    const rows = await feedbackOf();
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ page_id: page.id, helpful: 0, message: 'Sent without a script.' });
  });

  it('is sent without leaving the page with JavaScript on', async () => {
    const before = (await feedbackOf()).length;
    await withPage({}, async (tab) => {
      await tab.goto(site.url(page.path));
      let navigations = 0;
      tab.on('framenavigated', () => navigations++);
      await tab.getByLabel(/Anything to add/).fill('Sent by the script.');
      await tab.locator('form.feedback-form').getByRole('button', { name: 'Yes' }).click();
      await tab.locator('#feedback-thanks').waitFor({ state: 'visible' });
      expect(await tab.evaluate(() => document.activeElement?.id)).toBe('feedback-thanks');
      expect(await tab.locator('form.feedback-form').isVisible()).toBe(false);
      expect(navigations).toBe(0);
      expect(tab.url()).toBe(site.url(page.path));
    });
    const rows = await feedbackOf();
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({ page_id: page.id, helpful: 1, message: 'Sent by the script.' });
  });

  it('shows why feedback was not taken, read from the site’s page, with JavaScript on', async () => {
    await withPage(
      {},
      async (tab) => {
        await tab.goto(site.url(page.path));
        // The textarea keeps the reader to 2,000 characters; a longer one set by a script is refused.
        await tab.getByLabel(/Anything to add/).evaluate((area, text) => {
          (area as HTMLTextAreaElement).value = text;
        }, 'y'.repeat(2001));
        await tab.locator('form.feedback-form').getByRole('button', { name: 'No' }).click();
        const status = tab.locator('.feedback-status');
        await status.filter({ hasText: 'characters long' }).waitFor();
        expect(await status.textContent()).toContain('Your message is 2,001 characters long');
        expect(await tab.locator('form.feedback-form').isVisible()).toBe(true);
      },
      (problem) => problem.includes('status of 400') && problem.includes('/_site/feedback'),
    );
  });
});
