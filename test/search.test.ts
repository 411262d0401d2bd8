import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { upgradeDatabase } from '../src/upgrade.ts';
import { createDocumentation, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { upload } from './helpers/references.ts';
import { LATER_MIGRATIONS, undoLaterMigrations } from './helpers/later-migrations.ts';
import { buildTestApp, client, dialectName, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

interface Hit {
  content: string;
  title: string;
  sectionType: 'doc' | 'ref';
  version: string;
  section: string;
  page: string;
  pageId: number | null;
  fragment: string;
  path: string;
  highlight: { title: string; content: string };
}
interface Result {
  hits: Hit[];
  nbHits: number;
  page: number;
  nbPages: number;
  hitsPerPage: number;
  query: string;
  basepath: string | null;
  host: string | null;
}

const GUIDE = [
  'Quire serves documentation to your readers.',
  '',
  '## Configuration',
  '',
  'Set DATABASE_URL to configure the database. Configuring takes a minute.',
  '',
  '## Running the server',
  '',
  'Run npm start to serve the API on port 8080.',
].join('\n');

/** A published page in a world's section; returns its id. */
async function publishedPage(
  api: ReturnType<typeof client>,
  sectionId: number,
  title: string,
  content: string,
): Promise<number> {
  const created = await api.post(`/documentation/${sectionId}/page`, { title, content });
  expect(created.statusCode).toBe(200);
  const id = created.json<{ id: number }>().id;
  expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
  return id;
}

async function search(api: ReturnType<typeof client>, params: Record<string, string | number>) {
  const query = new URLSearchParams(
    Object.entries(params).map(([name, value]): [string, string] => [name, String(value)]),
  );
  return api.get(`/search?${query.toString()}`);
}

async function hitsOf(api: ReturnType<typeof client>, params: Record<string, string | number>) {
  const res = await search(api, params);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Result>();
}

const titles = (result: Result) => result.hits.map((hit) => hit.title);

describe('search content', () => {
  it('answers the result shape of decisions §6 with one hit per H2 section', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = await publishedPage(api, w.documentation.id, 'Getting started', GUIDE);
    const result = await hitsOf(api, { query: 'configure' });
    expect(Object.keys(result).sort()).toEqual(
      ['basepath', 'hits', 'hitsPerPage', 'host', 'nbHits', 'nbPages', 'page', 'query'].sort(),
    );
    expect(result).toMatchObject({ nbHits: 1, page: 0, nbPages: 1, hitsPerPage: 20, query: 'configure' });
    expect(result.hits).toEqual([
      {
        content: 'Set DATABASE_URL to configure the database. Configuring takes a minute.',
        title: 'Configuration',
        sectionType: 'doc',
        version: 'v1',
        section: 'guides',
        page: 'getting-started',
        pageId: id,
        fragment: 'configuration',
        path: '/v1/guides/getting-started#configuration',
        highlight: {
          title: '<mark>Configuration</mark>',
          content:
            'Set DATABASE_URL to <mark>configure</mark> the database. <mark>Configuring</mark> takes a minute.',
        },
      },
    ]);
    // The text before the first H2 is the page's own entry, under the page's title.
    const start = await hitsOf(api, { query: 'readers' });
    expect(start.hits.map((h) => [h.title, h.fragment, h.path])).toEqual([
      ['Getting started', '', '/v1/guides/getting-started'],
    ]);
  });

  it('finds a page in the request right after its publish answers, and never its draft', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Kettles',
      content: 'Descaling a kettle with vinegar.',
    });
    const id = created.json<{ id: number }>().id;
    expect((await hitsOf(api, { query: 'vinegar' })).nbHits).toBe(0);
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    expect(titles(await hitsOf(api, { query: 'vinegar' }))).toEqual(['Kettles']);

    // A new draft changes nothing readers see until it is published.
    await api.put(`/page/${id}`, { content: 'Descaling a kettle with citric acid.' });
    expect(titles(await hitsOf(api, { query: 'vinegar' }))).toEqual(['Kettles']);
    expect((await hitsOf(api, { query: 'citric' })).nbHits).toBe(0);
    await api.put(`/page/${id}/publish`);
    expect((await hitsOf(api, { query: 'vinegar' })).nbHits).toBe(0);
    expect(titles(await hitsOf(api, { query: 'citric' }))).toEqual(['Kettles']);

    // A new title shows at once.
    await api.put(`/page/${id}`, { title: 'Kettle care' });
    expect(titles(await hitsOf(api, { query: 'citric' }))).toEqual(['Kettle care']);
  });

  it('indexes a page whose plugin JSON escapes a NUL character, leaving the NUL out', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const content =
      '$plugin[{"type": "callout", "data": {"type": "info", "title": "Null\\u0000byte", "text": "walrus"}}]$';
    const id = (
      await api.post(`/documentation/${w.documentation.id}/page`, { title: 'Escapes', content })
    ).json<{
      id: number;
    }>().id;
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    const found = await hitsOf(api, { query: 'walrus' });
    expect(titles(found)).toEqual(['Escapes']);
    expect(JSON.stringify(found)).not.toContain('\\u0000');
  });

  it('forgets a version the moment it is unpublished, and finds it again when it is published', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id, 'Sourdough', 'Feed the starter daily.');
    expect((await hitsOf(api, { query: 'starter' })).nbHits).toBe(1);
    // Another published version stays the default, so this one may be unpublished.
    await createVersion(t.deps, w.project.id, { name: 'v0', slug: 'v0', published: true });
    expect((await api.put(`/version/${w.version.id}`, { published: false })).statusCode).toBe(200);
    expect((await hitsOf(api, { query: 'starter' })).nbHits).toBe(0);
    expect((await api.put(`/version/${w.version.id}`, { published: true, slug: 'v1-new' })).statusCode).toBe(
      200,
    );
    expect((await hitsOf(api, { query: 'starter' })).hits.map((h) => h.path)).toEqual([
      '/v1-new/guides/sourdough',
    ]);
  });

  it('searches only what readers can see: published sections only', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const hidden = await createDocumentation(t.deps, w.version.id, {
      title: 'Internal',
      slug: 'internal',
      published: false,
    });
    await publishedPage(api, hidden.id, 'Secret plans', 'The zeppelin launches at dawn.');
    await publishedPage(api, w.documentation.id, 'Public plans', 'The balloon launches at noon.');
    expect(titles(await hitsOf(api, { query: 'launches' }))).toEqual(['Public plans']);
    expect((await hitsOf(api, { query: 'zeppelin' })).nbHits).toBe(0);
  });

  it('stems words, matches the last word as a prefix, honours "phrases" and -words', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id, 'Getting started', GUIDE);
    await publishedPage(api, w.documentation.id, 'Databases', 'Which database engines are supported: two.');
    const paths = async (query: string) => (await hitsOf(api, { query })).hits.map((h) => h.path).sort();
    const configuration = '/v1/guides/getting-started#configuration';
    expect(await paths('configuring')).toEqual([configuration]);
    expect(await paths('configurations')).toEqual([configuration]);
    expect(await paths('conf')).toEqual([configuration]);
    // Only the last word is a prefix, and a trailing space ends it.
    expect(await paths('conf ')).toEqual([]);
    expect(await paths('database')).toEqual([configuration, '/v1/guides/databases'].sort());
    expect(await paths('database -configure')).toEqual(['/v1/guides/databases']);
    expect(await paths('"npm start"')).toEqual(['/v1/guides/getting-started#running-the-server']);
    expect(await paths('"start npm"')).toEqual([]);
    expect(await paths('-"npm start" serve')).toEqual(['/v1/guides/getting-started']);
    // Words that mean nothing alone are ignored, and a query of them alone finds nothing.
    expect(await paths('the database')).toEqual([configuration, '/v1/guides/databases'].sort());
    expect(await paths('the of and')).toEqual([]);
    expect(await paths('-database')).toEqual([]);
  });

  it('ranks a match in a title or heading above matches in body text', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const body = 'Mirrors mirrors mirrors: the word appears many times here, mirrors again and again.';
    await publishedPage(api, w.documentation.id, 'Glass', body);
    await publishedPage(api, w.documentation.id, 'Windows', 'Panes.\n\n## Mirrors\n\nOnce.');
    await publishedPage(api, w.documentation.id, 'Mirrors', 'Reflections.');
    const result = await hitsOf(api, { query: 'mirror' });
    expect(result.nbHits).toBe(3);
    expect(titles(result).slice(0, 2).sort()).toEqual(['Mirrors', 'Mirrors']);
    expect(titles(result)[2]).toBe('Glass');
  });

  it('marks matches in HTML with every other character escaped, around the first match', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(20);
    await publishedPage(
      api,
      w.documentation.id,
      'Escaping <b>bold</b> & "quotes"',
      `${filler}Write \`<script>alert(1)</script>\` and the parser escapes it. ${filler}`,
    );
    const [hit] = (await hitsOf(api, { query: 'parser' })).hits;
    expect(hit?.highlight.content).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt; and the <mark>parser</mark>',
    );
    expect(hit?.highlight.content).not.toContain('<script>');
    expect(hit?.highlight.content.startsWith('…')).toBe(true);
    expect(hit?.highlight.content.endsWith('…')).toBe(true);
    expect(hit?.highlight.content.length).toBeLessThan(260);
    expect(hit?.content.length).toBeLessThanOrEqual(501);
    const [titled] = (await hitsOf(api, { query: 'escaping' })).hits;
    expect(titled?.highlight.title).toBe(
      '<mark>Escaping</mark> &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quotes&quot;',
    );
  });

  it('finds words joined by punctuation (paths, files, hosts, addresses) and marks them in place', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(
      api,
      w.documentation.id,
      'Setup of docs/setup.md',
      'Call api.example.com/v2/widgets with user_id, or write to help@quire.example. Then 😀 relax.',
    );
    const yaml = [
      'openapi: 3.1.0',
      'info: { title: Store, version: "1" }',
      'paths:',
      '  /kennels/{kennel_id}:',
      '    get:',
      '      parameters: [{ name: kennel_id, in: path, required: true, schema: { type: string } }]',
      '      responses: { "200": { description: OK } }',
      '',
    ].join('\n');
    expect((await upload(t.app, w.key, w.version.id, yaml, { publish: true })).statusCode).toBe(201);

    const kennels = await hitsOf(api, { query: 'kennels' });
    expect(titles(kennels)).toEqual(['GET /kennels/{kennel_id}']);
    expect(kennels.hits[0]?.highlight.title).toBe('GET /<mark>kennels</mark>/{<mark>kennel</mark>_id}');
    expect(titles(await hitsOf(api, { query: 'kennel id' }))).toEqual(['GET /kennels/{kennel_id}']);

    // (A phrase is one mark on SQLite, a mark per word on PostgreSQL.)
    const cases: Array<[string, string[]]> = [
      ['widgets', ['api.example.com/v2/<mark>widgets</mark>']],
      ['example', ['api.<mark>example</mark>.com']],
      ['user', ['<mark>user</mark>_id']],
      ['help', ['<mark>help</mark>@quire.example']],
      ['"v2 widgets"', ['api.example.com/<mark>v2', 'widgets</mark> with']],
    ];
    for (const [query, marked] of cases) {
      const result = await hitsOf(api, { query });
      expect(titles(result), query).toEqual(['Setup of docs/setup.md']);
      for (const part of marked) expect(result.hits[0]?.highlight.content, query).toContain(part);
      expect(result.hits[0]?.highlight.content, query).toContain('Then 😀 relax.');
    }
    const file = await hitsOf(api, { query: 'setup md' });
    expect(file.hits[0]?.highlight.title).toBe(
      '<mark>Setup</mark> of docs/<mark>setup</mark>.<mark>md</mark>',
    );
  });

  it('narrows to a version (latest: the default one) and to a documentation section', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id, 'Tides v1', 'Tides follow the moon.');
    const api2 = await createDocumentation(t.deps, w.version.id, {
      title: 'API',
      slug: 'api',
      published: true,
    });
    await publishedPage(api, api2.id, 'Tides API', 'The tides endpoint.');
    const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
    const guides2 = await createDocumentation(t.deps, v2.id, {
      title: 'Guides',
      slug: 'guides',
      published: true,
    });
    await publishedPage(api, guides2.id, 'Tides v2', 'Tides follow the moon, still.');

    const all = await hitsOf(api, { query: 'tides' });
    expect(titles(all).sort()).toEqual(['Tides API', 'Tides v1', 'Tides v2']);
    expect(titles(await hitsOf(api, { query: 'tides', version_slug: 'v2' }))).toEqual(['Tides v2']);
    // The default version is the first published one: v1, made first.
    expect(titles(await hitsOf(api, { query: 'tides', version_slug: 'latest' })).sort()).toEqual([
      'Tides API',
      'Tides v1',
    ]);
    expect(
      titles(await hitsOf(api, { query: 'tides', version_slug: 'v1', documentation_slug: 'api' })),
    ).toEqual(['Tides API']);
    expect(titles(await hitsOf(api, { query: 'tides', documentation_slug: 'guides' })).sort()).toEqual([
      'Tides v1',
      'Tides v2',
    ]);
    const unknown = await search(api, { query: 'tides', version_slug: 'v9' });
    expect(unknown.statusCode).toBe(404);
    expectErrorShape(unknown);
  });

  it('walks every hit once, page by page', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const sections = Array.from(
      { length: 12 },
      (_, i) => `## Lantern ${i + 1}\n\nA lantern, number ${i + 1}.`,
    );
    await publishedPage(api, w.documentation.id, 'Part one', sections.slice(0, 6).join('\n\n'));
    await publishedPage(api, w.documentation.id, 'Part two', sections.slice(6).join('\n\n'));
    const seen: string[] = [];
    for (let page = 0; page < 4; page++) {
      const result = await hitsOf(api, { query: 'lantern', hits: 5, page });
      expect(result).toMatchObject({ nbHits: 12, nbPages: 3, page, hitsPerPage: 5 });
      expect(result.hits.length).toBe([5, 5, 2, 0][page]);
      seen.push(...result.hits.map((h) => h.path));
    }
    expect(new Set(seen).size).toBe(12);
  });

  it('finds the operations of published references, never a draft', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const yaml = (title: string) =>
      [
        'openapi: 3.1.0',
        `info: { title: ${title}, version: "1" }`,
        'components:',
        '  parameters:',
        '    Collar:',
        '      name: collar',
        '      in: query',
        '      description: Filter by collar colour',
        '      schema: { type: string }',
        'paths:',
        '  /pets/{id}:',
        '    get:',
        '      operationId: getPet',
        '      summary: Fetch one pet',
        '      description: Returns the pet with that identifier.',
        '      parameters:',
        '        - { name: id, in: path, required: true, description: The pet number, schema: { type: integer } }',
        "        - $ref: '#/components/parameters/Collar'",
        '      responses: { "200": { description: OK } }',
        '    delete:',
        '      description: Removes a pet for good.',
        '      parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]',
        '      responses: { "204": { description: Gone } }',
        '',
      ].join('\n');
    const draft = await upload(t.app, w.key, w.version.id, yaml('Pets'), { publish: false });
    expect(draft.statusCode, draft.body).toBe(201);
    expect((await hitsOf(api, { query: 'pet' })).nbHits).toBe(0);
    const refId = draft.json<{ id: number }>().id;
    expect((await api.put(`/reference/${refId}/publish`)).statusCode).toBe(200);
    const result = await hitsOf(api, { query: 'pet' });
    expect(
      // Both titles match: their order is the engine's to decide.
      result.hits
        .map((h) => [h.title, h.sectionType, h.section, h.page, h.fragment, h.path, h.pageId])
        .sort(),
    ).toEqual([
      ['DELETE /pets/{id}', 'ref', 'ref', 'pets', 'delete-pets-id', '/v1/ref/pets#delete-pets-id', null],
      ['Fetch one pet', 'ref', 'ref', 'pets', 'getpet', '/v1/ref/pets#getpet', null],
    ]);
    // Parameters are searchable, a $ref'd one too.
    expect(titles(await hitsOf(api, { query: 'collar colour' }))).toEqual(['Fetch one pet']);
    // A published upload is indexed at once; sections narrow references out.
    const other = await upload(t.app, w.key, w.version.id, yaml('Vets'), { publish: true });
    expect(other.statusCode).toBe(201);
    expect((await hitsOf(api, { query: 'removes' })).nbHits).toBe(2);
    expect((await hitsOf(api, { query: 'removes', documentation_slug: 'guides' })).nbHits).toBe(0);
  });

  it('needs search.read, and a browser key needs nothing else', async () => {
    const w = await createWorld(t.deps);
    const reader = await createKey(t.deps, w.project.id, { permissions: ['page.read'] });
    const denied = await search(client(t.app, reader.key), { query: 'anything' });
    expect(denied.statusCode).toBe(403);
    expect(expectErrorShape(denied).message).toContain('search.read');
    const browser = await createKey(t.deps, w.project.id, { permissions: ['search.read'] });
    const ok = await search(client(t.app, browser.key), { query: 'anything' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-ratelimit-limit']).toBe('10800');
  });

  it('refuses bad parameters with 400, and never fails on any query text', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id, 'Getting started', GUIDE);
    for (const params of [
      {},
      { query: '' },
      { query: 'x'.repeat(501) },
      // Many terms, one past the length allowed.
      { query: `${'a '.repeat(250)}a` },
      { query: 'x', hits: 101 },
      { query: 'x', hits: 0 },
      { query: 'x', page: -1 },
      { query: 'x', page: 'two' },
    ]) {
      const res = await search(api, params as Record<string, string>);
      expect(res.statusCode, JSON.stringify(params).slice(0, 80)).toBe(400);
      expectErrorShape(res);
    }
    // A query that makes the URL longer than any is refused before the parameters are read.
    const huge = await search(api, { query: 'a '.repeat(5_000) });
    expect(huge.statusCode).toBe(414);
    expectErrorShape(huge);
    const hostile = [
      'NEAR(config server)',
      'config AND OR NOT',
      '"unbalanced',
      'a"b"c"',
      '*',
      'conf*',
      '^config',
      'title:config',
      "config' OR '1'='1",
      '(((',
      '😀🎉 configure',
      '\u0001\u0002 \u0001config\u0002',
      '!config & (serve | run)',
      'config <-> serve',
      '-',
      '--config',
      '"-config"',
    ];
    for (const query of hostile) {
      const res = await search(api, { query });
      expect(res.statusCode, query).toBe(200);
    }
    expect(titles(await hitsOf(api, { query: '😀🎉 configure' }))).toEqual(['Configuration']);
  });

  it('answers no 5xx to generated query strings', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id, 'Getting started', GUIDE);
    const syntax = fc.constantFrom(
      '"',
      '*',
      '-',
      '(',
      ')',
      ':',
      '^',
      '!',
      '&',
      '|',
      '<->',
      'NEAR',
      'AND',
      'OR',
      'NOT',
      "'",
      '\\',
      ' ',
    );
    const text = fc.array(
      fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 8 }),
        syntax,
        fc.constantFrom('config', 'serve', 'the'),
      ),
      {
        maxLength: 12,
      },
    );
    let requests = 0;
    await fc.assert(
      fc.asyncProperty(text, async (parts) => {
        const query = parts.join('').slice(0, 500);
        if (query.length === 0) return;
        requests++;
        const res = await search(api, { query });
        expect(res.statusCode, JSON.stringify(query)).toBe(200);
      }),
      { numRuns: 300, seed: 20261123 },
    );
    expect(requests).toBeGreaterThan(250);
  });
});

describe('search from browsers', () => {
  it('answers preflights and requests from any origin, exposing the rate-limit headers', async () => {
    const w = await createWorld(t.deps);
    const origin = 'https://docs.example.com';
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/search?query=x',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('X-Api-Key');
    const res = await client(t.app, w.key).get('/search?query=x', { headers: { origin } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toContain('X-RateLimit-Remaining');
    // Errors are readable by the page too.
    const denied = await client(t.app, 'qk_wrong').get('/search?query=x', { headers: { origin } });
    expect(denied.statusCode).toBe(403);
    expect(denied.headers['access-control-allow-origin']).toBe('*');
    // Every other operation still refuses browsers.
    const other = await client(t.app, w.key).get('/version', { headers: { origin } });
    expect(other.statusCode).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers only the origins CORS_ORIGINS names', async () => {
    const narrow = await buildTestApp({ env: { CORS_ORIGINS: 'https://docs.example.com' } });
    try {
      const w = await createWorld(narrow.deps);
      const api = client(narrow.app, w.key);
      const allowed = await api.get('/search?query=x', { headers: { origin: 'https://docs.example.com' } });
      expect(allowed.statusCode).toBe(200);
      expect(allowed.headers['access-control-allow-origin']).toBe('https://docs.example.com');
      expect(allowed.headers.vary).toContain('Origin');
      const refused = await api.get('/search?query=x', { headers: { origin: 'https://evil.example' } });
      expect(refused.statusCode).toBe(403);
      expect(expectErrorShape(refused).message).toBe("Origin 'https://evil.example' is not allowed.");
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await narrow.close();
    }
  });
});

describe('rebuilding the index', () => {
  it('bin/quire search reindex derives every entry again from what is stored', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id, 'Getting started', GUIDE);
    const before = (await hitsOf(api, { query: 'serve' })).hits;
    expect(before.length).toBe(2);
    await t.deps.database.db.deleteFrom('search_entries').where('project_id', '=', w.project.id).execute();
    if (dialectName === 'sqlite') await sql`delete from search_fts`.execute(t.deps.database.db);
    // (An answer kept before is kept under the project's change stamp, which this raw delete of
    // derived rows does not move: a search not kept shows the index gone.)
    expect((await hitsOf(api, { query: 'server' })).nbHits).toBe(0);

    let stdout = '';
    const code = await runCli(
      ['search', 'reindex', '--project', String(w.project.id)],
      { stdout: (s) => (stdout += s), stderr: () => undefined },
      t.deps,
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ projects: [{ id: w.project.id, entries: 3 }] });
    expect((await hitsOf(api, { query: 'serve' })).hits).toEqual(before);
    // The reindex moved the stamp: the empty answer kept for this search is not served again.
    expect((await hitsOf(api, { query: 'server' })).nbHits).toBeGreaterThan(0);

    let stderr = '';
    const missing = await runCli(
      ['search', 'reindex', '--project', '999999'],
      { stdout: () => undefined, stderr: (s) => (stderr += s) },
      t.deps,
    );
    expect(missing).not.toBe(0);
    expect(stderr).toContain('Project 999999 not found');
  });

  it('the migration that rebuilds the index indexes what is already there', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await publishedPage(api, w.documentation.id, 'Getting started', GUIDE);
    // As if the content had been written before the migration ran: an empty index, the migration due.
    const db = t.deps.database.db;
    if (dialectName === 'sqlite') await sql`delete from search_fts`.execute(db);
    await db.deleteFrom('search_entries').execute();
    expect(titles(await hitsOf(api, { query: 'configure' }))).toEqual([]);
    // Migrations run in order: the ones after 0007 are due again too.
    // (What a later migration creates goes first, so that running it again finds no table in its way.)
    await undoLaterMigrations(db);
    await db.schema.dropTable('former_slugs').execute();
    if (dialectName === 'sqlite') await sql`drop trigger projects_site_stamp`.execute(db);
    else await sql`drop trigger projects_site_stamp on projects`.execute(db);
    await db.schema.dropIndex('projects_site_host_idx').execute();
    for (const column of ['site_host', 'site_logo', 'site_color', 'site_css', 'site_redirects']) {
      await db.schema.alterTable('projects').dropColumn(column).execute();
    }
    await db.schema.alterTable('idempotency_keys').dropColumn('holder').execute();
    await db.schema.alterTable('audit_log').dropColumn('version_id').execute();
    await db.schema.alterTable('audit_log').dropColumn('project_wide').execute();
    for (const table of [
      'webhook_stamps',
      'rendered_contents',
      'change_stamps',
      'webhook_attempts',
      'webhook_deliveries',
      'webhooks',
      'link_scans',
    ]) {
      await db.schema.dropTable(table).execute();
    }
    const later = [
      '0007-search-posts',
      '0008-link-scans',
      '0009-webhooks',
      '0010-change-stamps',
      '0011-rendered-contents',
      '0012-search-words',
      '0013-version-scope',
      '0014-idempotency-holder',
      '0015-search-change-stamps',
      '0016-site',
      '0017-former-slugs',
      '0018-webhook-stamps',
      ...LATER_MIGRATIONS,
    ];
    await db
      .deleteFrom('kysely_migration' as never)
      .where('name' as never, 'in', later as never)
      .execute();
    expect(await upgradeDatabase(t.deps.database, t.storage.schema)).toEqual(later);
    expect(titles(await hitsOf(api, { query: 'configure' }))).toEqual(['Configuration']);
  });
});
