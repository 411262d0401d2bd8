import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  PAGE_KINDS,
  axeViolations,
  describeInBrowser,
  launchChromium,
  seriousOnes,
  serveFixtureSite,
  watchProblems,
  type PageKind,
  type ServedSite,
} from './browser-helpers.ts';

/**
 * The themes a reader can get: the system's light or dark (no choice stored), and dark chosen with
 * the toggle over a light system (html[data-theme]), whose custom properties are a rule of their own.
 */
const THEMES = [
  { name: 'light', colorScheme: 'light', toggle: false, background: 'rgb(255, 255, 255)' },
  { name: 'dark', colorScheme: 'dark', toggle: false, background: 'rgb(20, 23, 28)' },
  { name: 'dark by the toggle', colorScheme: 'light', toggle: true, background: 'rgb(20, 23, 28)' },
] as const;

/** With SITE_SCREENSHOTS=DIR, every page checked is also saved there as a PNG, to be looked at. */
const SHOTS = process.env.SITE_SCREENSHOTS;

describeInBrowser('the reader site in Chromium: accessibility (axe-core)', () => {
  let browser: Browser;
  let site: ServedSite;

  beforeAll(async () => {
    [browser, site] = await Promise.all([launchChromium(), serveFixtureSite()]);
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** Opens every theme of a kind of page in one context, checking each with axe-core. */
  async function check(kind: PageKind, options: BrowserContextOptions, label: string): Promise<void> {
    const context = await browser.newContext(options);
    try {
      const page = await context.newPage();
      const problems = watchProblems(page);
      const url = site.url(kind.path(site.fixture));
      const found: string[] = [];
      for (const theme of THEMES) {
        await page.emulateMedia({ colorScheme: theme.colorScheme });
        await page.evaluate('localStorage.clear()').catch(() => undefined);
        const response = await page.goto(url);
        expect(response?.status(), url).toBe(kind.status);
        if (theme.toggle) await page.click('.theme-toggle');
        // On a phone the navigation waits behind its disclosure: opened, so that axe sees it too.
        const menu = page.locator('.nav-toggle summary');
        if (await menu.isVisible()) await menu.click();
        await expect.poll(() => background(page), { message: theme.name }).toBe(theme.background);
        found.push(...seriousOnes(await axeViolations(page)).map((line) => `${theme.name}: ${line}`));
        if (SHOTS) {
          const file = `${kind.name}-${label}-${theme.name}`.replace(/[^a-z0-9]+/gi, '-');
          await page.screenshot({ path: path.join(SHOTS, `${file}.png`), fullPage: true });
        }
      }
      expect(found).toEqual([]);
      // The 404 of the page itself is what was asked for; nothing else may fail.
      expect(problems.filter((line) => !(kind.status === 404 && line.endsWith(`(${url})`)))).toEqual([]);
    } finally {
      await context.close();
    }
  }

  const DEVICES = [
    { label: 'desktop', options: { viewport: { width: 1280, height: 900 } } },
    { label: 'phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
  ] satisfies Array<{ label: string; options: BrowserContextOptions }>;

  for (const kind of PAGE_KINDS) {
    for (const device of DEVICES) {
      it(`${kind.name}: no serious or critical violation, light and dark, ${device.label}`, async (ctx) => {
        if (kind.pending !== undefined) {
          const probe = await fetch(site.url(kind.path(site.fixture)));
          ctx.skip(probe.status === 404, kind.pending);
        }
        await check(kind, device.options, device.label);
      });
    }
  }
});

const background = (page: Page): Promise<string> =>
  page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
