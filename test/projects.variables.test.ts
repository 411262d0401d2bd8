import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { adminContext, auditEntries, createWorld } from './helpers/factories.ts';
import { openapiJson, upload } from './helpers/references.ts';
import { buildTestApp, client, useTestApp, type TestApp } from './helpers/test-app.ts';

const t = useTestApp();

/** Runs a command in-process over an app's services; returns the exit code, streams and JSON. */
async function quire(app: TestApp, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, app.deps);
  return { code, stdout, stderr, json: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : null };
}

const CONTENT = '# About %product%\n\nCall %product% at %api.host%, version %api.version%.\n';

async function publishedPage(api: ReturnType<typeof client>, sectionId: number): Promise<number> {
  const created = await api.post(`/documentation/${sectionId}/page`, { title: 'About', content: CONTENT });
  expect(created.statusCode).toBe(200);
  const id = created.json<{ id: number }>().id;
  expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
  return id;
}

describe('project variables (bin/quire project create|update --variables)', () => {
  it('sets what pages read, retiring cached answers on every instance, the search index and the audit log following', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = await publishedPage(api, w.documentation.id);
    const other = await buildTestApp({ sharedWith: t });
    try {
      const otherApi = client(other.app, w.key);
      // Without variables the names stay as written; both instances keep that answer.
      for (const reader of [api, otherApi]) {
        const before = await reader.get(`/page/${id}?format=text`);
        expect(before.json<{ contentPublished: string }>().contentPublished).toContain('About %product%');
      }
      const searchFor = async (query: string) =>
        (await api.get(`/search?query=${query}`)).json<{ nbHits: number }>().nbHits;
      expect(await searchFor('Quire')).toBe(0);

      const variables = { product: 'Quire', api: { host: 'api.example.com', version: 2 } };
      const set = await quire(
        t,
        'project',
        'update',
        String(w.project.id),
        '--variables',
        JSON.stringify(variables),
      );
      expect(set.code, set.stderr).toBe(0);
      expect(set.json).toMatchObject({ id: w.project.id, variables });

      for (const reader of [api, otherApi]) {
        const html = await reader.get(`/page/${id}?format=html`);
        const body = html.json<{ contentPublished: string }>().contentPublished;
        expect(body).toContain('About Quire');
        expect(body).toContain('at api.example.com, version 2.');
        const text = await reader.get(`/page/${id}?format=text`);
        expect(text.json<{ contentPublished: string }>().contentPublished).toContain('About Quire');
      }
      // The source keeps the names.
      const darkdown = await api.get(`/page/${id}`);
      expect(darkdown.json<{ contentPublished: string }>().contentPublished).toBe(CONTENT);
      expect(await searchFor('Quire')).toBe(1);

      const [entry] = await auditEntries(t.deps, w.project.id);
      expect(entry).toMatchObject({ scope: 'content', entity: 'project', operation: 'UPD' });
      expect(entry?.message).toBe('Project variables changed');
      expect(JSON.parse(entry?.details ?? '{}')).toEqual({
        field: 'variables',
        from: '{}',
        to: JSON.stringify(variables),
        source: 'cli',
      });

      // Replaced whole: what is not given any more is gone, and its name stays as written.
      const replaced = await quire(
        t,
        'project',
        'update',
        String(w.project.id),
        '--variables',
        '{"product":"Quire 2"}',
      );
      expect(replaced.code, replaced.stderr).toBe(0);
      const after = await otherApi.get(`/page/${id}?format=markdown`);
      const markdown = after.json<{ contentPublished: string }>().contentPublished;
      expect(markdown).toContain('About Quire 2');
      expect(markdown).toContain('%api.host%');
      expect(await searchFor('Quire')).toBe(1);
      // The same value again changes nothing and audits nothing.
      const entries = (await auditEntries(t.deps, w.project.id)).length;
      const same = await quire(
        t,
        'project',
        'update',
        String(w.project.id),
        '--variables',
        '{"product":"Quire 2"}',
      );
      expect(same.code).toBe(0);
      expect((await auditEntries(t.deps, w.project.id)).length).toBe(entries);
    } finally {
      await other.close();
    }
  });

  it('takes variables when a project is created, and lists them with the project', async () => {
    const made = await quire(t, 'project', 'create', '--name', 'Docs', '--variables', '{"product":"Quire"}');
    expect(made.code, made.stderr).toBe(0);
    expect(made.json).toMatchObject({ name: 'Docs', variables: { product: 'Quire' } });
    const plain = await quire(t, 'project', 'create', '--name', 'Plain');
    expect(plain.json).toMatchObject({ variables: {} });
    const list = await quire(t, 'project', 'list');
    const items = (list.json as { items: Array<{ id: number; variables: unknown }> }).items;
    expect(items.find((p) => p.id === made.json?.id)?.variables).toEqual({ product: 'Quire' });
  });

  it('refuses variables a page could not read, naming what is wrong, and changes nothing', async () => {
    const w = await createWorld(t.deps);
    const cases: Array<[string, string]> = [
      ['{"product": ', '--variables is not JSON'],
      ['["Quire"]', 'variables must be an object of names and values'],
      ['"Quire"', 'variables must be an object of names and values'],
      ['{"two words": "x"}', 'variables.two words is not a name a page can use'],
      ['{"1st": "x"}', 'variables.1st is not a name a page can use'],
      [
        '{"list": [1, 2]}',
        'variables.list must be a string, a number, a boolean or an object of such values',
      ],
      ['{"nothing": null}', 'variables.nothing must be a string, a number, a boolean or an object'],
      [
        JSON.stringify({ a: { b: { c: { d: { e: { f: { g: { h: { i: 'deep' } } } } } } } } }),
        'variables.a.b.c.d.e.f.g.h nests deeper than 8 levels',
      ],
      [JSON.stringify({ big: 'x'.repeat(70_000) }), 'variables must be at most 65536 bytes as JSON'],
    ];
    for (const [given, message] of cases) {
      const res = await quire(t, 'project', 'update', String(w.project.id), '--variables', given);
      expect(res.code, given).not.toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n'), given).toHaveLength(1);
      expect(res.stderr, given).toContain(message);
    }
    const deepest = JSON.stringify({ a: { b: { c: { d: { e: { f: { g: { h: 'eight' } } } } } } } });
    const ok = await quire(t, 'project', 'update', String(w.project.id), '--variables', deepest);
    expect(ok.code, ok.stderr).toBe(0);
    const shown = await quire(t, 'project', 'update', String(w.project.id), '--name', 'Renamed');
    expect(shown.json).toMatchObject({ name: 'Renamed', variables: JSON.parse(deepest) as unknown });
  });

  it("derives the search entries of pages and posts again, and keeps those of the project's references", async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id);
    const uploaded = await upload(t.app, w.key, w.version.id, openapiJson('Pets API'));
    expect(uploaded.statusCode).toBe(201);
    const changelog = await t.deps.changelogs.create(
      await adminContext(t.deps, { projectId: w.project.id }),
      {
        title: 'Updates',
      },
    );
    const post = await api.post(`/changelog/${changelog.id}/post`, {
      title: 'New features',
      content: 'What %product% does now.',
      published: true,
    });
    expect(post.statusCode).toBe(200);
    const entries = () =>
      t.deps.database.db
        .selectFrom('search_entries')
        .select(['id', 'reference_id'])
        .where('project_id', '=', w.project.id)
        .orderBy('id')
        .execute();
    const before = await entries();
    const referenceIds = before.filter((e) => e.reference_id !== null).map((e) => e.id);
    expect(referenceIds.length).toBeGreaterThan(0);

    const set = await quire(
      t,
      'project',
      'update',
      String(w.project.id),
      '--variables',
      '{"product":"Quire"}',
    );
    expect(set.code, set.stderr).toBe(0);

    const after = await entries();
    // The references' entries are the same rows; the others are new ones, as many as before.
    expect(after.filter((e) => e.reference_id !== null).map((e) => e.id)).toEqual(referenceIds);
    const texts = after.filter((e) => e.reference_id === null);
    expect(texts).toHaveLength(before.length - referenceIds.length);
    const firstBefore = Math.max(...before.map((e) => e.id));
    expect(texts.every((e) => e.id > firstBefore)).toBe(true);
    const hits = await api.get('/search?query=Quire');
    const titles = hits.json<{ hits: Array<{ title: string }> }>().hits.map((hit) => hit.title);
    expect(titles).toEqual(expect.arrayContaining(['About', 'New features']));
  });

  it('replaces each name where it was read, in every format: not a copy of it in an address or a code span', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const set = await quire(t, 'project', 'update', String(w.project.id), '--variables', '{"v":"Value"}');
    expect(set.code, set.stderr).toBe(0);
    const source = [
      '[Link %v%](https://example.com/%v%) then %v%, and `%v%` then %v%.',
      '',
      '| One | Two |',
      '| --- | --- |',
      '| %v% | %v% and a\\|b %v% |',
      '',
      '> Quoted [x](%v%)',
      '> %v% ends.',
      '',
      '[Up](%v%) ![Logo of %v%](logo.png)',
    ].join('\n');
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Places',
      content: source,
    });
    expect(created.statusCode).toBe(200);
    const id = created.json<{ id: number }>().id;
    const read = async (format: string) =>
      (await api.get(`/page/${id}?format=${format}`)).json<{ contentDraft: string }>().contentDraft;

    expect(await read('markdown')).toBe(
      [
        '[Link Value](https://example.com/%v%) then Value, and `%v%` then Value.',
        '',
        '| One | Two |',
        '| --- | --- |',
        '| Value | Value and a\\|b Value |',
        '',
        '> Quoted [x](%v%)',
        '> Value ends.',
        '',
        '[Up](%v%) ![Logo of Value](logo.png)',
      ].join('\n'),
    );
    const html = await read('html');
    expect(html).toContain(
      '<a href="https://example.com/%25v%25">Link Value</a> then Value, and <code>%v%</code> then Value.',
    );
    expect(html).toContain('<td>Value</td>');
    expect(html).toContain('<td>Value and a|b Value</td>');
    expect(html).toContain('<a href="%25v%25">x</a>\nValue ends.');
    expect(html).toContain('<img src="logo.png" alt="Logo of Value" />');
    const text = await read('text');
    expect(text).toContain('Link Value then Value, and %v% then Value.');
    expect(text).toContain('Value ends.');
  });
});
