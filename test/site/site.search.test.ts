import { describe, expect, it } from 'vitest';
import { createWorld } from '../helpers/factories.ts';
import { client, useTestApp } from '../helpers/test-app.ts';
import { resultLinks, searchPage, suggestions } from './search-helpers.ts';
import { createDocumentation, createPublicSite, createVersion, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();

describe('the reader site: search finds what readers see, and leads to it', () => {
  it('finds exactly what readers can see, on the page and in the suggestions', async () => {
    const w = await createPublicSite(t.deps);
    const api = client(t.app, w.key);
    const root = `/sites/${w.project.id}`;
    const body = (title: string) => `${title} mentions the quokkaplanet.`;
    await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Shown',
      slug: 'shown',
      content: body('Shown'),
    });
    await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Draft',
      slug: 'draft',
      content: body('Draft'),
      publish: false,
    });
    // Published, then a draft of new words: the draft's words are not found, the published ones are.
    const edited = await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Edited',
      slug: 'edited',
      content: 'Edited, as published.',
    });
    expect((await api.put(`/page/${edited}`, { content: body('Edited draft') })).statusCode).toBe(200);
    const unlisted = await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Unlisted',
      slug: 'unlisted',
      content: body('Unlisted'),
    });
    expect((await api.put(`/page/${unlisted}`, { listed: false })).statusCode).toBe(200);
    const deleted = await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Deleted',
      slug: 'deleted',
      content: body('Deleted'),
    });
    expect((await api.delete(`/page/${deleted}`)).statusCode).toBe(200);
    const hiddenSection = await createDocumentation(t.deps, w.version.id, {
      title: 'Hidden',
      slug: 'hidden',
      published: false,
    });
    await sitePage(t.app, w.key, hiddenSection.id, { title: 'In hidden', content: body('In hidden') });
    const hiddenVersion = await createVersion(t.deps, w.project.id, {
      name: 'v9',
      slug: 'v9',
      published: false,
    });
    const section9 = await createDocumentation(t.deps, hiddenVersion.id, { title: 'G', slug: 'guides' });
    await sitePage(t.app, w.key, section9.id, { title: 'In v9', content: body('In v9') });
    const other = await createPublicSite(t.deps);
    await sitePage(t.app, other.key, other.documentation.id, {
      title: 'Elsewhere',
      slug: 'elsewhere',
      content: body('Elsewhere'),
    });

    const res = await searchPage(t.app, root, 'quokkaplanet');
    expect(resultLinks(res.body)).toEqual([`${root}/v1/guides/shown`]);
    expect(res.body).toContain('1 result for “quokkaplanet”');
    expect(res.body).toContain('<mark>quokkaplanet</mark>');
    expect(res.body).toContain('<meta name="robots" content="noindex"/>');
    const found = await suggestions(t.app, root, 'quokkapl');
    expect(found.hits.map((hit) => hit.url)).toEqual([`${root}/v1/guides/shown`]);
    expect(found.hits[0]).toEqual({ url: `${root}/v1/guides/shown`, title: 'Shown', context: 'Guides' });
    for (const word of ['draft', 'Unlisted', 'Deleted', 'hidden', 'v9', 'Elsewhere']) {
      expect(resultLinks((await searchPage(t.app, root, word)).body), word).toEqual([]);
      expect((await suggestions(t.app, root, word)).hits, word).toEqual([]);
    }
    // The other project finds its own page alone.
    const elsewhere = await searchPage(t.app, `/sites/${other.project.id}`, 'quokkaplanet');
    expect(resultLinks(elsewhere.body)).toEqual([`/sites/${other.project.id}/v1/guides/elsewhere`]);
  });

  it('answers nothing of a private project without a session, page or suggestions', async () => {
    const w = await createWorld(t.deps, { access: 'invite' });
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Secret', content: 'The secretword.' });
    for (const url of ['/search?q=secretword', '/search/results.json?q=secretword']) {
      const res = await visit(t.app, `/sites/${w.project.id}${url}`);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`/sites/${w.project.id}/login?next=${encodeURIComponent(url)}`);
      expect(res.body).not.toContain('secretword</');
      expect(res.body).not.toContain('/v1/guides/');
    }
  });

  it('finds a page at the very next request after it is published, and not after it is gone', async () => {
    const w = await createPublicSite(t.deps);
    const api = client(t.app, w.key);
    const root = `/sites/${w.project.id}`;
    expect(resultLinks((await searchPage(t.app, root, 'pelican')).body)).toEqual([]);
    expect((await suggestions(t.app, root, 'pelican')).hits).toEqual([]);
    const id = await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Birds',
      slug: 'birds',
      content: 'A pelican.',
    });
    expect(resultLinks((await searchPage(t.app, root, 'pelican')).body)).toEqual([`${root}/v1/guides/birds`]);
    expect((await suggestions(t.app, root, 'pelican')).hits).toHaveLength(1);
    expect((await api.put(`/page/${id}`, { content: 'A cormorant.' })).statusCode).toBe(200);
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    expect(resultLinks((await searchPage(t.app, root, 'pelican')).body)).toEqual([]);
    expect(resultLinks((await searchPage(t.app, root, 'cormorant')).body)).toEqual([
      `${root}/v1/guides/birds`,
    ]);
    expect((await api.delete(`/page/${id}`)).statusCode).toBe(200);
    expect(resultLinks((await searchPage(t.app, root, 'cormorant')).body)).toEqual([]);
    expect((await suggestions(t.app, root, 'cormorant')).hits).toEqual([]);
  });

  it('leads every hit to its page and to an element whose id is its fragment', async () => {
    const w = await createPublicSite(t.deps);
    const root = `/sites/${w.project.id}`;
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Other page', slug: 'other' });
    const content = [
      'Flamingo before any heading.',
      '',
      '## Über uns',
      '',
      'Flamingo in German.',
      '',
      '## 日本語の見出し',
      '',
      'Flamingo in Japanese.',
      '',
      '## Setup',
      '',
      'Flamingo set up once.',
      '',
      '## Setup',
      '',
      'Flamingo set up twice.',
      '',
      '## Setup-2',
      '',
      'Flamingo, a heading that looks numbered.',
      '',
      '## !!!',
      '',
      'Flamingo under symbols.',
      '',
      '## With `code` & <b>bold</b>',
      '',
      'Flamingo with markup.',
      '',
      '## See [auto$](/guides/other)',
      '',
      'Flamingo beside a link to a page whose title is not its slug.',
      '',
      '> ## Quoted',
      '>',
      '> Flamingo in a quote (no section of its own).',
      '',
      '## Über uns',
      '',
      'Flamingo again.',
    ].join('\n');
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Headings', slug: 'headings', content });
    await sitePage(t.app, w.key, w.documentation.id, {
      title: 'No intro',
      slug: 'no-intro',
      content: '## Flamingo first\n\nFlamingo at once.',
    });

    const links: string[] = [];
    for (let page = 1; page <= 3; page++) {
      links.push(...resultLinks((await searchPage(t.app, root, 'flamingo', `&page=${page}`)).body));
    }
    const expected = [
      '',
      'über-uns',
      '日本語の見出し',
      'setup',
      'setup-2',
      'setup-2-2',
      'section',
      'with-code-bold',
      'see-other',
      'über-uns-2',
    ].map((fragment) => `${root}/v1/guides/headings${fragment === '' ? '' : `#${fragment}`}`);
    expect([...links].sort()).toEqual([...expected, `${root}/v1/guides/no-intro#flamingo-first`].sort());
    for (const link of links) {
      const [path = '', fragment] = link.split('#');
      const page = await visit(t.app, path);
      expect(page.statusCode, link).toBe(200);
      if (fragment !== undefined) expect(page.body, link).toContain(`id="${fragment}"`);
    }
    // The page names the linked page by its title, and its anchor by the page's slug.
    const headings = await visit(t.app, `${root}/v1/guides/headings`);
    expect(headings.body).toMatch(/<h2 id="see-other">See <a href="[^"]*">Other page<\/a><\/h2>/);
  });
});
