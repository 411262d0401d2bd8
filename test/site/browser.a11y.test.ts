import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, it } from 'vitest';
import { DEVICES, checkAccessibility } from './a11y-helpers.ts';
import {
  PAGE_KINDS,
  describeInBrowser,
  launchChromium,
  serveFixtureSite,
  type ServedSite,
} from './browser-helpers.ts';

describeInBrowser('the reader site in Chromium: accessibility (axe-core)', () => {
  let browser: Browser;
  let site: ServedSite;

  beforeAll(async () => {
    [browser, site] = await Promise.all([launchChromium(), serveFixtureSite()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  for (const kind of PAGE_KINDS) {
    for (const device of DEVICES) {
      it(`${kind.name}: no serious or critical violation, light and dark, ${device.label}`, async () => {
        const target = { name: kind.name, url: site.url(kind.path(site.fixture)), status: kind.status };
        await checkAccessibility(browser, target, device);
      });
    }
  }
});
