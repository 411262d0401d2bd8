/**
 * The accessibility check every kind of page of the site gets (site.md §8): the page in each theme a
 * reader can have, on a desktop and on a phone, with no serious or critical axe-core violation and
 * nothing failing in the page. With SITE_SCREENSHOTS=DIR each page checked is also saved there.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations, seriousOnes, watchProblems } from './browser-helpers.ts';

/**
 * The themes a reader can get: the system's light or dark (no choice stored), and dark chosen with
 * the toggle over a light system (html[data-theme]), whose custom properties are a rule of their own.
 */
const THEMES = [
  { name: 'light', colorScheme: 'light', toggle: false, background: 'rgb(255, 255, 255)' },
  { name: 'dark', colorScheme: 'dark', toggle: false, background: 'rgb(20, 23, 28)' },
  { name: 'dark by the toggle', colorScheme: 'light', toggle: true, background: 'rgb(20, 23, 28)' },
] as const;

export const DEVICES = [
  { label: 'desktop', options: { viewport: { width: 1280, height: 900 } } },
  { label: 'phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
] satisfies Array<{ label: string; options: BrowserContextOptions }>;

const SHOTS = process.env.SITE_SCREENSHOTS;
if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });

export interface CheckedPage {
  /** a name for messages and screenshot files */
  name: string;
  url: string;
  status: number;
  /** a cookie the reader has (a private site's session, `name=value`), sent on the page's host */
  cookie?: string;
}

/** Opens every theme of a page in one context, checking each with axe-core. */
export async function checkAccessibility(
  browser: Browser,
  target: CheckedPage,
  device: (typeof DEVICES)[number],
): Promise<void> {
  const context = await browser.newContext(device.options);
  try {
    if (target.cookie !== undefined) {
      const [name, ...value] = target.cookie.split('=');
      const { hostname } = new URL(target.url);
      await context.addCookies([{ name: name ?? '', value: value.join('='), domain: hostname, path: '/' }]);
    }
    const page = await context.newPage();
    const problems = watchProblems(page);
    const found: string[] = [];
    for (const theme of THEMES) {
      await page.emulateMedia({ colorScheme: theme.colorScheme });
      await page.evaluate('localStorage.clear()').catch(() => undefined);
      const response = await page.goto(target.url);
      expect(response?.status(), target.url).toBe(target.status);
      if (theme.toggle) await page.click('.theme-toggle');
      // On a phone the navigation waits behind its disclosure: opened, so that axe sees it too.
      const menu = page.locator('.nav-toggle summary');
      if (await menu.isVisible()) await menu.click();
      await expect.poll(() => background(page), { message: theme.name }).toBe(theme.background);
      found.push(...seriousOnes(await axeViolations(page)).map((line) => `${theme.name}: ${line}`));
      if (SHOTS) {
        const file = `${target.name}-${device.label}-${theme.name}`.replace(/[^a-z0-9]+/gi, '-');
        await page.screenshot({ path: path.join(SHOTS, `${file}.png`), fullPage: true });
      }
    }
    expect(found).toEqual([]);
    // The 404 of the page itself is what was asked for; nothing else may fail.
    expect(problems.filter((line) => !(target.status === 404 && line.endsWith(`(${target.url})`)))).toEqual(
      [],
    );
  } finally {
    await context.close();
  }
}

const background = (page: Page): Promise<string> =>
  page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
