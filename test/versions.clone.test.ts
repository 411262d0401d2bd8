import { describe, expect, it } from 'vitest';
import { adminContext, auditEntries, createKey, createWorld } from './helpers/factories.ts';
import { createRichProject } from './helpers/rich-project.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { zipTexts } from './helpers/zip.ts';

const t = useTestApp();

/** A version's files in the export, keyed by their path below the version's folder; no manifest. */
async function exportedFiles(key: string, versionSlug: string, folder: string) {
  const res = await client(t.app, key).get(`/export?version_slug=${versionSlug}`);
  expect(res.statusCode).toBe(200);
  const files = await zipTexts(res.rawPayload);
  return Object.fromEntries(
    Object.entries(files)
      .filter(([name]) => name !== 'manifest.json')
      .map(([name, text]) => {
        expect(name.startsWith(`${folder}/`), name).toBe(true);
        return [name.slice(folder.length + 1), text];
      }),
  );
}

describe('POST /version/{id}/clone', () => {
  it('copies sections, categories, pages (both contents, flags, order, parents) and references item by item', async () => {
    const p = await createRichProject(t.deps, t.app);
    const api = client(t.app, p.key);
    // Links naming the version are re-pointed; version-relative ones and other versions' stay.
    const links = [
      'See [setup](/v1/guides/setup), [the API](/v1/ref/pets-api#get-pets) and [next](/next/guides/next-intro).',
      '[relative](/guides/setup) <a href="/v1/guides/intro">html</a> </v1/guides/intro>',
      '',
      '[defined]: /v1/guides/setup',
    ].join('\n');
    const linking = await api.post(`/documentation/${p.guides.id}/page`, { title: 'Links', content: links });
    expect(linking.statusCode).toBe(200);
    const gone = await api.post(`/documentation/${p.guides.id}/page`, { title: 'Gone', content: 'x' });
    expect((await api.delete(`/page/${gone.json<{ id: number }>().id}`)).statusCode).toBe(200);

    const res = await api.post(`/version/${p.v1.id}/clone`, { name: 'Clone of 1.0', slug: 'clone' });
    expect(res.statusCode, res.body).toBe(201);
    const clone = res.json<{ id: number; slug: string; published: boolean; ordr: number; name: string }>();
    expect(clone).toMatchObject({ name: 'Clone of 1.0', slug: 'clone', published: false, ordr: 0 });
    expect(res.headers['x-ratelimit-limit']).toBe('60');

    const versions = (await api.get('/version')).json<Array<{ slug: string; ordr: number }>>();
    expect(versions.map((v) => v.slug)).toEqual(['clone', 'v1', 'next']);
    expect(versions.map((v) => v.ordr)).toEqual([0, 2, 3]);

    const source = await exportedFiles(p.key, 'v1', 'Version 1.0');
    const copy = await exportedFiles(p.key, 'clone', 'Clone of 1.0');
    expect(Object.keys(copy).sort()).toEqual(Object.keys(source).sort());
    expect(Object.keys(copy).some((name) => name.includes('Gone'))).toBe(false);
    expect(Object.keys(copy).filter((name) => name.startsWith('refs/')).length).toBeGreaterThanOrEqual(3);
    for (const [name, text] of Object.entries(source)) {
      const expected = text.replaceAll('](/v1/', '](/clone/').replaceAll('"/v1/', '"/clone/');
      expect(copy[name]!.replaceAll('</clone/', '</v1/').replaceAll(']: /clone/', ']: /v1/'), name).toBe(
        expected,
      );
    }
    const linksFile = Object.entries(copy).find(([name]) => name.endsWith(' Links.md'))![1];
    expect(linksFile).toContain('[setup](/clone/guides/setup)');
    expect(linksFile).toContain('[the API](/clone/ref/pets-api#get-pets)');
    expect(linksFile).toContain('[next](/next/guides/next-intro)');
    expect(linksFile).toContain('[relative](/guides/setup)');
    expect(linksFile).toContain('<a href="/clone/guides/intro">html</a> </clone/guides/intro>');
    expect(linksFile).toContain('[defined]: /clone/guides/setup');

    // The source is untouched, and the copies are pages of their own.
    const sourcePage = (await api.get(`/page/${p.setup.id}`)).json<{ path: string }>();
    expect(sourcePage.path).toBe('v1/guides/setup');
    const copied = await api.get('/page?version_slug=clone&documentation_slug=guides&page_slug=setup');
    expect(copied.statusCode).toBe(200);
    expect(copied.json<{ id: number }>().id).not.toBe(p.setup.id);

    const [entry] = await auditEntries(t.deps, p.project.id);
    expect(entry).toMatchObject({
      entity: 'version',
      entity_id: String(clone.id),
      operation: 'INS',
      message: "Version 'Clone of 1.0' cloned from 'Version 1.0'",
    });
    expect(JSON.parse(entry!.details)).toMatchObject({
      sourceId: p.v1.id,
      copied: { documentation: 2, categories: 2, pages: 9, references: 2 },
    });
  });

  it('makes the slug from the name, unique; an explicit taken slug is 409', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const first = await api.post(`/version/${w.version.id}/clone`, { name: 'Next' });
    expect(first.json<{ slug: string }>().slug).toBe('next');
    const second = await api.post(`/version/${w.version.id}/clone`, { name: 'Next' });
    expect(second.json<{ slug: string }>().slug).toBe('next-2');
    const latest = await api.post(`/version/${w.version.id}/clone`, { name: 'Latest' });
    expect(latest.json<{ slug: string }>().slug).toBe('latest-2');
    const taken = await api.post(`/version/${w.version.id}/clone`, { name: 'X', slug: 'v1' });
    expect(taken.statusCode).toBe(409);
    expectErrorShape(taken);
  });

  it('validates, needs version.edit, keeps other projects and versions out of reach', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    expect((await api.post(`/version/${w.version.id}/clone`, {})).statusCode).toBe(400);
    expect((await api.post(`/version/${w.version.id}/clone`, { name: '  ' })).statusCode).toBe(400);
    expect(
      (await api.post(`/version/${w.version.id}/clone`, { name: 'X', slug: 'Bad Slug' })).statusCode,
    ).toBe(400);
    const text = await api.post(`/version/${w.version.id}/clone`, 'name=X', {
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.statusCode).toBe(415);
    const reader = await createKey(t.deps, w.project.id, { permissions: ['project.read'] });
    expect(
      (await client(t.app, reader.key).post(`/version/${w.version.id}/clone`, { name: 'X' })).statusCode,
    ).toBe(403);
    const stranger = await createWorld(t.deps);
    expect(
      (await client(t.app, stranger.key).post(`/version/${w.version.id}/clone`, { name: 'X' })).statusCode,
    ).toBe(404);
    expect((await api.post('/version/999999/clone', { name: 'X' })).statusCode).toBe(404);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    const other = await t.deps.versions.create(ctx, { name: 'Other', published: true });
    const scoped = await createKey(t.deps, w.project.id, { versions: [other.id] });
    expect(
      (await client(t.app, scoped.key).post(`/version/${w.version.id}/clone`, { name: 'X' })).statusCode,
    ).toBe(403);
  });
});
