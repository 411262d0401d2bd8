import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  describeInBrowser,
  launchChromium,
  serveFixtureSite,
  watchProblems,
  type ServedSite,
} from './browser-helpers.ts';
import type { FixturePage } from './fixture-project.ts';

const NAV = 'nav[aria-label="Documentation"]';
const DARK = 'rgb(20, 23, 28)';
const LIGHT = 'rgb(255, 255, 255)';

describeInBrowser('the reader site in Chromium: what readers do', () => {
  let browser: Browser;
  let site: ServedSite;
  /** pages of the default version: one the older version has too, one in a section it lacks */
  let shared: FixturePage;
  let onlyHere: FixturePage;

  beforeAll(async () => {
    [browser, site] = await Promise.all([launchChromium(), serveFixtureSite()]);
    const [current, older] = site.fixture.versions;
    shared = site.fixture.sharedPage;
    const olderSections = new Set(older?.pages.map((p) => p.sectionSlug));
    const other = current?.pages.find((p) => p.listed && !olderSections.has(p.sectionSlug));
    if (!older || !other) throw new Error('the fixture has no second version, or no section of its own');
    onlyHere = other;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** A page in a context of its own, watched for errors; the context is closed after `use`. */
  async function withPage(
    options: BrowserContextOptions,
    use: (page: Page, context: BrowserContext) => Promise<void>,
    /** a problem the test expects (the 404 of a page the site does not serve yet) */
    expected: (problem: string) => boolean = () => false,
  ) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    try {
      const page = await context.newPage();
      const problems = watchProblems(page);
      await use(page, context);
      expect(problems.filter((problem) => !expected(problem))).toEqual([]);
    } finally {
      await context.close();
    }
  }

  const current = (page: Page) => page.locator(`${NAV} a[aria-current="page"]`);
  const linkTo = (path: string) => `a[href="${site.rootPath}${path}"]`;

  it('navigating the tree: a click opens the page, and aria-current moves to it', async () => {
    await withPage({}, async (page) => {
      await page.goto(site.url(shared.path));
      await expect.poll(() => current(page).getAttribute('href')).toBe(`${site.rootPath}${shared.path}`);

      // A page nested in a category, under a parent page.
      const nested = site.fixture.richPage;
      await page.click(`${NAV} ${linkTo(nested.path)}`);
      await page.waitForURL(site.url(nested.path));
      expect(await page.locator('h1').textContent()).toBe(nested.title);
      expect(await current(page).count()).toBe(1);
      expect(await current(page).getAttribute('href')).toBe(`${site.rootPath}${nested.path}`);
      expect(await page.locator(`${NAV} .category + ul ul a[aria-current="page"]`).count()).toBe(1);

      // Previous and next follow the navigation's order.
      const next = await page.locator('.pager a[rel="next"]').getAttribute('href');
      await page.click('.pager a[rel="next"]');
      await page.waitForURL(`http://127.0.0.1:${new URL(site.root).port}${next ?? ''}`);
      expect(await current(page).getAttribute('href')).toBe(next);

      // The breadcrumbs lead back to the start.
      await page.click('.breadcrumbs li:first-child a');
      await page.waitForURL(site.url('/'));
      expect(await page.locator('h1').textContent()).toBe(site.fixture.name);
    });
  });

  it('switching versions leads to the same page in the other version, else to its start', async () => {
    await withPage({}, async (page) => {
      const [, older] = site.fixture.versions;
      const olderFirst = older?.pages[0];
      if (!older || !olderFirst) throw new Error('no older version');
      await page.goto(site.url(shared.path));
      await page.click('.version-switcher summary');
      await page.click(`.version-switcher a:text-is("${older.name}")`);
      const samePage = shared.path.replace(/^\/[^/]+/, `/${older.slug}`);
      await page.waitForURL(site.url(samePage));
      expect(await page.locator('h1').textContent()).toBe(shared.title);
      expect(await page.locator('.version-switcher summary').textContent()).toContain(older.name);
      expect(await current(page).getAttribute('href')).toBe(`${site.rootPath}${samePage}`);

      await page.goto(site.url(onlyHere.path));
      await page.click('.version-switcher summary');
      await page.click(`.version-switcher a:text-is("${older.name}")`);
      await page.waitForURL(site.url(olderFirst.path));
      expect(await page.locator('h1').textContent()).toBe(olderFirst.title);
    });
  });

  it('the theme toggle switches data-theme, and the choice holds on the next pages', async () => {
    await withPage({ colorScheme: 'light' }, async (page) => {
      await page.goto(site.url(shared.path));
      const toggle = page.locator('.theme-toggle');
      await expect.poll(() => toggle.isVisible()).toBe(true);
      expect(await page.getAttribute('html', 'data-theme')).toBeNull();
      expect(await background(page)).toBe(LIGHT);

      await toggle.click();
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      expect(await toggle.getAttribute('aria-pressed')).toBe('true');
      expect(await background(page)).toBe(DARK);

      await page.click(`${NAV} ${linkTo(site.fixture.richPage.path)}`);
      await page.waitForURL(site.url(site.fixture.richPage.path));
      await expect.poll(() => page.getAttribute('html', 'data-theme')).toBe('dark');
      expect(await background(page)).toBe(DARK);
      expect(await page.locator('.theme-toggle').textContent()).toBe('Light theme');

      await page.locator('.theme-toggle').click();
      await page.reload();
      await expect.poll(() => page.getAttribute('html', 'data-theme')).toBe('light');
      expect(await background(page)).toBe(LIGHT);
    });
  });

  it('a copy button puts its code block on the clipboard', async () => {
    await withPage({}, async (page, context) => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: new URL(site.root).origin,
      });
      await page.goto(site.url(site.fixture.richPage.path));
      const blocks = page.locator('.content pre');
      await expect.poll(() => page.locator('.content pre > .copy-button').count()).toBe(await blocks.count());
      const second = blocks.nth(1);
      const code = (await second.locator('code').textContent()) ?? '';
      expect(code).toContain("import { connect } from '@harbor/client';");
      // The engine ends a block with a newline; the clipboard gets the code without it, so that a
      // command pasted into a terminal waits for Enter.
      expect(code.endsWith('\n')).toBe(true);
      await second.locator('.copy-button').click();
      await expect.poll(() => second.locator('.copy-button').textContent()).toBe('Copied');
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(code.slice(0, -1));
    });
  });

  it('a stored dark choice is the first theme painted, before the deferred script has run', async () => {
    await withPage({ colorScheme: 'light' }, async (page) => {
      await page.goto(site.url(shared.path));
      await page.evaluate("localStorage.setItem('quire-theme', 'dark')");
      // site.js is held back: until it runs, the page shows what the head's own script did.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/_site/site.*.js', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(site.url(site.fixture.richPage.path), { waitUntil: 'commit' });
      await page.locator('h1').waitFor();
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      expect(await background(page)).toBe(DARK);
      expect(await page.locator('.theme-toggle').isVisible()).toBe(false);
      release();
      await expect.poll(() => page.locator('.theme-toggle').isVisible()).toBe(true);
      expect(await page.locator('.theme-toggle').textContent()).toBe('Light theme');

      // It is the one script that blocks the parser, and it is small.
      const blocking = page.locator('head script:not([defer]):not([async])');
      expect(await blocking.count()).toBe(1);
      const script = await fetch(new URL((await blocking.getAttribute('src')) ?? '', site.root));
      expect(script.headers.get('cache-control')).toContain('immutable');
      expect((await script.text()).length).toBeLessThan(600);
    });
  });

  it('on a phone, a Menu disclosure above the content opens the navigation, without JavaScript', async () => {
    const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
    await withPage({ ...phone, javaScriptEnabled: false }, async (page, context) => {
      await page.goto(site.url(site.fixture.richPage.path));
      const menu = page.locator('.nav-toggle summary');
      const nav = page.locator(NAV);
      expect(await menu.isVisible()).toBe(true);
      expect(await nav.isVisible()).toBe(false);
      expect(await disclosure(context, page, 'Menu')).toEqual({ focusable: true, expanded: false });
      const top = async (selector: string) => (await page.locator(selector).boundingBox())?.y ?? Infinity;
      expect(await top('.nav-toggle summary')).toBeLessThan(await top('main h1'));

      // Reached with the keyboard from the top, before anything of the content; Enter opens it.
      const passed: string[] = [];
      for (let i = 0; i < 12 && passed.at(-1) !== 'Menu'; i++) {
        await page.keyboard.press('Tab');
        passed.push(
          await page.evaluate<string>(
            'document.activeElement?.closest("main") ? "main" : (document.activeElement?.textContent ?? "")',
          ),
        );
      }
      expect(passed.at(-1)).toBe('Menu');
      expect(passed).not.toContain('main');
      await page.keyboard.press('Enter');
      await expect.poll(() => nav.isVisible()).toBe(true);
      expect(await disclosure(context, page, 'Menu')).toEqual({ focusable: true, expanded: true });
      expect(await current(page).isVisible()).toBe(true);
      expect(await top(NAV)).toBeLessThan(await top('main h1'));
      await page.keyboard.press('Tab');
      expect(
        await page.evaluate<string>(
          'document.activeElement?.closest("nav")?.getAttribute("aria-label") ?? ""',
        ),
      ).toBe('Documentation');
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Enter');
      await expect.poll(() => nav.isVisible()).toBe(false);
    });
    // On a wide screen there is no disclosure: the navigation is always there.
    await withPage({ javaScriptEnabled: false }, async (page) => {
      await page.goto(site.url(site.fixture.richPage.path));
      expect(await page.locator('.nav-toggle summary').isVisible()).toBe(false);
      expect(await page.locator(NAV).isVisible()).toBe(true);
    });
  });

  it('without JavaScript, the search form submits to {site}/search?q= and the toggle stays hidden', async () => {
    await withPage({ javaScriptEnabled: false }, async (page) => {
      await page.goto(site.url(shared.path));
      expect(await page.locator('.theme-toggle').isVisible()).toBe(false);
      expect(await page.locator('.content pre > .copy-button').count()).toBe(0);
      await page.fill('#site-search', 'backups');
      const [response] = await Promise.all([page.waitForNavigation(), page.press('#site-search', 'Enter')]);
      // The page's version goes with the query (`v`) in a project of several versions.
      expect(page.url()).toMatch(
        new RegExp(
          `^${site.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/search\\?q=backups(&v=[a-z0-9.-]+)?$`,
        ),
      );
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
    });
  });

  it('without JavaScript, the search page lists the pages that match', async (ctx) => {
    const probe = await fetch(`${site.root}/search?q=backups`);
    ctx.skip(
      probe.status === 404,
      `${site.rootPath}/search answers 404: server-rendered search is not on the site yet`,
    );
    await withPage({ javaScriptEnabled: false }, async (page) => {
      await page.goto(site.url(shared.path));
      await page.fill('#site-search', 'Backups');
      await Promise.all([page.waitForNavigation(), page.press('#site-search', 'Enter')]);
      const hrefs = await page
        .locator('main a')
        .evaluateAll((links) =>
          links.map((link) =>
            (link as unknown as { getAttribute(name: string): string | null }).getAttribute('href'),
          ),
        );
      expect(
        hrefs.some((href) => href?.split('#')[0] === `${site.rootPath}${site.fixture.richPage.path}`),
      ).toBe(true);
    });
  });

  it('search as you type shows what {site}/search/results.json finds, and goes to a hit', async (ctx) => {
    const probe = await fetch(`${site.root}/search/results.json?q=backups`);
    ctx.skip(
      probe.status === 404,
      `${site.rootPath}/search/results.json answers 404: the suggest endpoint is not on the site yet`,
    );
    await withPage({}, async (page) => {
      await page.goto(site.url(shared.path));
      // On a loaded machine a pause between keys can let a shorter query's suggestions show first;
      // the list is built again when the whole word's answer comes, so the keys wait for that one.
      const whole = page.waitForResponse(
        (r) =>
          r.url().includes('/search/results.json') && new URL(r.url()).searchParams.get('q') === 'Backups',
      );
      await page.locator('#site-search').pressSequentially('Backups', { delay: 20 });
      await whole;
      const options = page.locator('#site-suggestions [role="option"]');
      await expect.poll(() => options.count()).toBeGreaterThan(0);
      expect(await page.getAttribute('#site-search', 'aria-expanded')).toBe('true');
      const first = await options.first().getAttribute('href');
      expect(first).toContain(site.rootPath);
      await page.press('#site-search', 'ArrowDown');
      await expect.poll(() => options.first().getAttribute('aria-selected')).toBe('true');
      await Promise.all([page.waitForNavigation(), page.press('#site-search', 'Enter')]);
      expect(new URL(page.url()).pathname).toBe(new URL(first ?? '', page.url()).pathname);
      expect(await page.locator('h1').textContent()).toContain('Backups');
    });
  });

  it("the script's side of search as you type: suggestions as a listbox, keys to choose, Escape to close", async () => {
    // The endpoint's answer is given here, so that the script is held to its contract alone.
    const hits = [site.fixture.richPage, shared].map((p) => ({
      url: `${site.rootPath}${p.path}#overview`,
      title: p.title,
      context: `About ${p.title}`,
    }));
    await withPage({}, async (page) => {
      const asked: string[] = [];
      await page.route('**/search/results.json?*', async (route) => {
        asked.push(route.request().url());
        await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ hits }) });
      });
      await page.goto(site.url(site.fixture.richPage.path));
      const input = page.locator('#site-search');
      await input.pressSequentially('ba', { delay: 20 });
      const options = page.locator('#site-suggestions [role="option"]');
      await expect.poll(() => options.count()).toBe(2);
      expect(new URL(asked.at(-1) ?? '').searchParams.get('q')).toBe('ba');
      expect(new URL(asked.at(-1) ?? '').pathname).toBe(`${site.rootPath}/search/results.json`);
      expect(await options.first().textContent()).toBe(`${hits[0]?.title} ${hits[0]?.context}`);
      expect(await input.getAttribute('aria-expanded')).toBe('true');

      await input.press('Escape');
      expect(await options.count()).toBe(0);
      expect(await input.getAttribute('aria-expanded')).toBe('false');

      await input.pressSequentially('c', { delay: 20 });
      await expect.poll(() => options.count()).toBe(2);
      await input.press('ArrowDown');
      await input.press('ArrowDown');
      expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
      expect(await input.getAttribute('aria-activedescendant')).toBe(await options.nth(1).getAttribute('id'));
      await Promise.all([page.waitForURL(site.url(`${shared.path}#overview`)), input.press('Enter')]);
      expect(await page.locator('h1').textContent()).toBe(shared.title);
    });
  });

  it("a reference page's anchors: every operation's link scrolls to its anchor, the one search gives", async () => {
    const reference = site.fixture.extra.find((entry) => entry.kind === 'reference');
    expect(reference, 'the fixture publishes a reference').toBeDefined();
    // The fragments search gives this reference's operations: the page must hold each of them.
    const search = await fetch(
      `${site.root.replace(/\/sites\/\d+$/, '')}/api/v1/search?query=cluster&hits=100`,
      {
        headers: { 'x-api-key': site.fixture.key },
      },
    );
    const hits = (
      (await search.json()) as { hits: Array<{ sectionType: string; path: string }> }
    ).hits.filter((hit) => hit.sectionType === 'ref');
    await withPage({}, async (page) => {
      await page.goto(site.url(reference?.path ?? '/'));
      const links = page.locator('.toc .level-3 a');
      const count = await links.count();
      expect(count).toBeGreaterThan(1);
      const fragments: string[] = [];
      for (let i = 0; i < count; i++) {
        const link = links.nth(i);
        const fragment = ((await link.getAttribute('href')) ?? '').slice(1);
        fragments.push(fragment);
        await link.click();
        await expect.poll(() => page.evaluate('location.hash')).toBe(`#${fragment}`);
        // The anchor exists once, and the click brought it to the top of the window.
        const target = page.locator(`[id="${fragment}"]`);
        expect(await target.count()).toBe(1);
        await expect
          .poll(async () => (await target.boundingBox())?.y ?? -1)
          .toBeLessThan(page.viewportSize()?.height ?? 900);
        expect((await target.boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0);
      }
      const ours = hits.filter((hit) => hit.path.split('#')[0] === reference?.path);
      expect(ours.length).toBeGreaterThan(0);
      for (const hit of ours) expect(fragments).toContain(hit.path.split('#')[1]);
    });
  });
});

/**
 * What Chromium tells assistive technology of the disclosure named `name`: whether it takes focus and
 * whether it is expanded (its own accessibility tree, which the driver's locators do not give).
 */
async function disclosure(
  context: BrowserContext,
  page: Page,
  name: string,
): Promise<{ focusable: boolean; expanded: boolean } | null> {
  const cdp = await context.newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const node = nodes.find((n) => n.role?.value === 'DisclosureTriangle' && n.name?.value === name);
    if (!node) return null;
    const property = (key: string) => node.properties?.find((p) => p.name === key)?.value.value === true;
    return { focusable: property('focusable'), expanded: property('expanded') };
  } finally {
    await cdp.detach();
  }
}

const background = (page: Page): Promise<string> =>
  page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
