import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { parsePageFile } from '../src/content/index.ts';
import { adminContext, createKey, createWorld } from './helpers/factories.ts';
import { createRichProject, EVERY_CONSTRUCT } from './helpers/rich-project.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { zipTexts } from './helpers/zip.ts';

const t = useTestApp();

async function exportOf(key: string, query = ''): Promise<Record<string, string>> {
  const res = await client(t.app, key).get(`/export${query}`);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  return zipTexts(res.rawPayload);
}

describe('GET /export', () => {
  it('lays out versions, sections, index entries, children and references as decisions §6 says', async () => {
    const p = await createRichProject(t.deps, t.app);
    const files = await exportOf(p.key);
    expect(Object.keys(files)).toEqual([
      'Version 1.0/Guides/settings.json',
      'Version 1.0/Guides/1 Intro.md',
      'Version 1.0/Guides/2 Basics.md',
      'Version 1.0/Guides/3 Setup.md',
      'Version 1.0/Guides/Setup/1 Linux.md',
      'Version 1.0/Guides/Setup/Linux/1 Debian.md',
      'Version 1.0/Guides/4 Setup (2).md',
      'Version 1.0/Guides/Setup (2)/1 Mac.md',
      'Version 1.0/Guides/5 A-B- c- -d-.md',
      'Version 1.0/Guides/6 Empty category.md',
      // A section titled `refs` would share its folder with the references: numbered instead.
      'Version 1.0/refs (2)/settings.json',
      'Version 1.0/refs (2)/1 In refs.md',
      'Version 1.0/refs/pets-api.json',
      'Version 1.0/refs/drafts/pets-api.yaml',
      'Version 1.0/refs/orders-api.yaml',
      // `/` and `:` cannot be in a folder name.
      'Next- 2-0/Guides/settings.json',
      'Next- 2-0/Guides/1 Next intro.md',
      'Next- 2-0/refs/draft-api.json',
      'manifest.json',
    ]);

    expect(JSON.parse(files['Version 1.0/Guides/settings.json'] ?? '')).toEqual({
      title: 'Guides',
      slug: 'guides',
      published: true,
      position: 1,
    });
    expect(files['Version 1.0/Guides/2 Basics.md']).toBe('---\ntype: category\ntitle: Basics\n---\n');
    // The envelope of darkdown.md §5: front matter, the pending draft, then the published body.
    expect(parsePageFile(files['Version 1.0/Guides/1 Intro.md'] ?? '')).toEqual({
      meta: { type: 'page', title: 'Intro', slug: 'intro', listed: true },
      draft: `${EVERY_CONSTRUCT}\nA pending draft line.\n`,
      published: EVERY_CONSTRUCT,
    });
    expect(files['Version 1.0/Guides/Setup/Linux/1 Debian.md']).toBe(
      '---\ntype: page\ntitle: Debian\nslug: debian\nlisted: false\n---draft\n\nDebian *draft*\n',
    );
    expect(parsePageFile(files['Version 1.0/Guides/5 A-B- c- -d-.md'] ?? '').meta).toEqual({
      type: 'page',
      title: 'A/B: c? <d>',
      slug: 'a-b-c-d',
      listed: false,
    });
    // References byte for byte as uploaded; a draft pending over a published one beside it.
    expect(files['Version 1.0/refs/pets-api.json']).toBe(p.json);
    expect(files['Version 1.0/refs/orders-api.yaml']).toBe(p.yaml);
    expect(files['Version 1.0/refs/drafts/pets-api.yaml']).toContain('title: Pets API');

    const manifest = JSON.parse(files['manifest.json'] ?? '') as Record<string, unknown>;
    expect(manifest).toMatchObject({
      kind: 'quire-export',
      contentFormat: 'darkdown',
      project: { id: p.project.id },
      counts: { versions: 2, documentation: 3, categories: 2, pages: 9, references: 3 },
      warnings: [],
    });
    expect(manifest.versions).toMatchObject([
      {
        id: p.v1.id,
        slug: 'v1',
        folder: 'Version 1.0',
        published: true,
        documentation: [
          { id: p.guides.id, slug: 'guides', folder: 'Guides', pages: 7, categories: 2 },
          { id: p.refsSection.id, slug: 'refs-section', folder: 'refs (2)', pages: 1, categories: 0 },
        ],
        references: [
          {
            slug: 'pets-api',
            published: true,
            file: 'refs/pets-api.json',
            draftFile: 'refs/drafts/pets-api.yaml',
          },
          { slug: 'orders-api', published: true, file: 'refs/orders-api.yaml' },
        ],
      },
      { id: p.v2.id, slug: 'next', folder: 'Next- 2-0', published: false },
    ]);
  });

  it('converts bodies to Markdown with format=markdown, as a page read in markdown gives them', async () => {
    const p = await createRichProject(t.deps, t.app);
    const files = await exportOf(p.key, '?format=markdown');
    const read = (await client(t.app, p.key).get(`/page/${p.intro.id}?format=markdown`)).json<{
      contentDraft: string;
      contentPublished: string;
    }>();
    const intro = parsePageFile(files['Version 1.0/Guides/1 Intro.md'] ?? '');
    expect(intro.published).toBe(read.contentPublished);
    expect(intro.draft).toBe(read.contentDraft);
    expect(intro.published).not.toContain('$plugin[{"type":"callout"');
    expect(intro.published).toContain('Quire');
    expect(JSON.parse(files['manifest.json'] ?? '')).toMatchObject({ contentFormat: 'markdown' });
  });

  it('exports one version with version_slug (latest naming the default one); an unknown slug is 404', async () => {
    const p = await createRichProject(t.deps, t.app);
    const next = await exportOf(p.key, '?version_slug=next');
    expect(
      Object.keys(next)
        .filter((f) => f !== 'manifest.json')
        .every((f) => f.startsWith('Next- 2-0/')),
    ).toBe(true);
    const latest = await exportOf(p.key, '?version_slug=latest');
    expect(
      Object.keys(latest)
        .filter((f) => f !== 'manifest.json')
        .every((f) => f.startsWith('Version 1.0/')),
    ).toBe(true);
    const missing = await client(t.app, p.key).get('/export?version_slug=nope');
    expect(missing.statusCode).toBe(404);
    expectErrorShape(missing);
  });

  it('leaves out the versions a scoped key cannot reach', async () => {
    const p = await createRichProject(t.deps, t.app);
    const { key } = await createKey(t.deps, p.project.id, { versions: [p.v2.id] });
    const files = await exportOf(key);
    expect(Object.keys(files).some((f) => f.startsWith('Version 1.0/'))).toBe(false);
    expect(files['Next- 2-0/Guides/1 Next intro.md']).toContain('next');
    expect((await client(t.app, key).get('/export?version_slug=v1')).statusCode).toBe(403);
  });

  it('answers 400 naming the plan on other plans, 403 without the permission, 400 for a bad format', async () => {
    const free = await createWorld(t.deps, { plan: 'grow' });
    const res = await client(t.app, free.key).get('/export');
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).message).toMatch(/enterprise plan/);

    const w = await createWorld(t.deps);
    const { key } = await createKey(t.deps, w.project.id, { permissions: ['page.read'] });
    const forbidden = await client(t.app, key).get('/export');
    expect(forbidden.statusCode).toBe(403);
    expect(expectErrorShape(forbidden).message).toContain('project.export');
    expect((await client(t.app, w.key).get('/export?format=pdf')).statusCode).toBe(400);
  });

  it('allows 10 exports an hour: the 11th is 429 with Retry-After', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    for (let i = 0; i < 10; i++) expect((await api.get('/export')).statusCode).toBe(200);
    const refused = await api.get('/export');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expectErrorShape(refused);
  });

  it('writes a draft holding a "---published" line without it, and says so in the manifest', async () => {
    const w = await createWorld(t.deps);
    const created = await client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'Odd',
      content: 'before\n---published\nafter',
    });
    const files = await exportOf(w.key);
    expect(files['v1/Guides/1 Odd.md']).toBe('---\ntype: page\ntitle: Odd\nslug: odd\nlisted: false\n---\n');
    expect(JSON.parse(files['manifest.json'] ?? '')).toMatchObject({
      warnings: [{ file: 'v1/Guides/1 Odd.md', message: expect.stringContaining('---published') }],
    });
    expect(created.statusCode).toBe(200);
  });
});

describe('GET /export while it streams', () => {
  /** Pages deflate cannot shrink, 16 MB in all: more than the socket and the archive's queue hold. */
  const PAGES = 20;
  async function largeProject() {
    const w = await createWorld(t.deps);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    const ids: number[] = [];
    for (let i = 0; i < PAGES; i++) {
      const content = randomBytes(600_000).toString('base64');
      ids.push((await t.deps.pages.create(ctx, w.documentation.id, { title: `Page ${i}`, content })).id);
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    return { ...w, ids, port };
  }

  /** Starts an export and takes its first bytes, then stops reading. */
  async function pausedExport(port: number, key: string) {
    const request = http.get({
      host: '127.0.0.1',
      port,
      path: '/api/v1/export',
      headers: { 'x-api-key': key },
    });
    const [response] = (await once(request, 'response')) as [http.IncomingMessage];
    expect(response.statusCode).toBe(200);
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve) =>
      response.once('data', (chunk: Buffer) => {
        chunks.push(chunk);
        response.pause();
        resolve();
      }),
    );
    return { request, response, chunks };
  }

  /**
   * Whether a read transaction still holds an earlier state of the database than the last write: on
   * SQLite, a passive checkpoint cannot pass the snapshot's mark in the write-ahead log; on PostgreSQL,
   * the export's session is inside its transaction.
   */
  async function snapshotHeld(): Promise<boolean> {
    const sqlite = t.deps.database.sqlite;
    if (sqlite !== null) {
      const [result] = sqlite.pragma('wal_checkpoint(PASSIVE)') as Array<{
        log: number;
        checkpointed: number;
      }>;
      return result !== undefined && result.checkpointed < result.log;
    }
    // Any of the app's other sessions inside a transaction of several statements: idle between the
    // export's reads, or active in one after the first. A statement on its own (a background read or
    // store of the app's) is a transaction too, whose start is its own: it holds no snapshot between
    // statements, and is left out.
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from pg_stat_activity
      where application_name = ${`quire ${t.storage.schema ?? ''}`} and pid <> pg_backend_pid()
        and (state = 'idle in transaction' or (state = 'active' and xact_start < query_start))`.execute(
      t.deps.database.db,
    );
    return Number(rows[0]?.n ?? 0) > 0;
  }

  it('comes from one snapshot: writes made meanwhile are not held up and are wholly out of it', async () => {
    const w = await largeProject();
    const { response, chunks } = await pausedExport(w.port, w.key);

    const api = client(t.app, w.key);
    const last = w.ids[w.ids.length - 1] ?? 0;
    const before = (await api.get(`/page/${last}`)).json<{ contentDraft: string }>().contentDraft;
    expect((await api.put(`/page/${last}`, { content: 'changed during the export' })).statusCode).toBe(200);
    expect(
      (await api.post(`/documentation/${w.documentation.id}/page`, { title: 'Late', content: 'late' }))
        .statusCode,
    ).toBe(200);
    // The export was still reading when the writes committed.
    expect(await snapshotHeld()).toBe(true);

    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.resume();
    await once(response, 'end');
    const files = await zipTexts(Buffer.concat(chunks));
    expect(Object.keys(files).filter((f) => f.endsWith('.md'))).toHaveLength(PAGES);
    expect(parsePageFile(files[`v1/Guides/${PAGES} Page ${PAGES - 1}.md`] ?? '').draft).toBe(before);
    expect(Object.keys(files).some((f) => f.includes('Late'))).toBe(false);
    // The export ends its transaction after its last byte is sent, not before.
    await expect.poll(snapshotHeld, { timeout: 10_000, interval: 50 }).toBe(false);
  });

  it('stops reading the database when the client goes away', async () => {
    const w = await largeProject();
    const { request } = await pausedExport(w.port, w.key);
    try {
      // A write after the snapshot began, so that a held snapshot shows.
      await client(t.app, w.key).put(`/page/${w.ids[0] ?? 0}`, { content: 'changed' });
      expect(await snapshotHeld()).toBe(true);
    } finally {
      // Also when the check fails: a paused export would hold the app's close for good.
      request.destroy();
    }
    await expect.poll(snapshotHeld, { timeout: 10_000, interval: 50 }).toBe(false);
    // The service is whole: the next export runs to its end.
    const next = await client(t.app, w.key).get('/export');
    expect(next.statusCode).toBe(200);
    expect(Object.keys(await zipTexts(next.rawPayload))).toHaveLength(PAGES + 2);
  });
});
