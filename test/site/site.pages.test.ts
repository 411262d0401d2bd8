import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.ts';
import { createPublicSite, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();

describe('the reader site: pages', () => {
  it('serves a published page with its navigation, title and canonical address', async () => {
    const w = await createPublicSite(t.deps);
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Getting started', slug: 'start' });
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Second', slug: 'second' });
    const res = await visit(t.app, `/sites/${w.project.id}/v1/guides/start`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toMatch(/^<!doctype html><html lang="en">/);
    expect(res.body).toContain('<title>Getting started | ');
    expect(res.body).toContain('<h1>Getting started</h1>');
    expect(res.body).toContain(`href="/sites/${w.project.id}/v1/guides/second"`);
    expect(res.body).toMatch(/aria-current="page"[^>]*>Getting started|>Getting started<\/a>/);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    const again = await visit(t.app, `/sites/${w.project.id}/v1/guides/start`, {
      'if-none-match': String(res.headers.etag),
    });
    expect(again.statusCode).toBe(304);
  });
});

describe('links between pages on the site', () => {
  it('leads links of the contents, which name no version, below the page version', async () => {
    const w = await createPublicSite(t.deps);
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Target', slug: 'target' });
    await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Source',
      slug: 'source',
      content:
        'See [auto$](/guides/target#overview) and [the start](/guides/target), not [elsewhere](//example.com/x).',
    });
    const res = await visit(t.app, `/sites/${w.project.id}/v1/guides/source`);
    expect(res.body).toContain(`href="/sites/${w.project.id}/v1/guides/target#overview"`);
    expect(res.body).toContain(`href="/sites/${w.project.id}/v1/guides/target"`);
    expect(res.body).toContain('href="//example.com/x"');
    expect(res.body).toContain('>Target</a>');
  });
});
