import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSync } from '../src/cli/sync/sync.ts';
import { createDocumentation, createVersion, createWorld, pageHistory } from './helpers/factories.ts';
import { runQuire, runQuireSync, useListeningApp } from './helpers/listening-app.ts';
import { client } from './helpers/test-app.ts';

// The CLI is an HTTP client: one app for the file, on a real port.
const t = useListeningApp();

type Rule = { method: string; path: RegExp; answer: 'rate-limit' | 'drop-after-forward' | 'fail' };

/**
 * A small HTTP proxy in front of the app: it records every request, and can answer 429 once, forward a
 * request and then drop the connection before the answer, or fail a request with 500 — what a real
 * network and a busy server do to a pipeline.
 */
async function startProxy(target: string) {
  const requests: Array<{ method: string; path: string; status: number; key?: string; replayed?: boolean }> =
    [];
  const rules: Array<Rule & { once: boolean }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const url = req.url ?? '/';
        const key = req.headers['idempotency-key'];
        const tag = typeof key === 'string' ? { key } : {};
        const index = rules.findIndex((r) => r.method === method && r.path.test(url));
        const rule = rules[index];
        if (rule?.once) rules.splice(index, 1);
        if (rule?.answer === 'rate-limit' || rule?.answer === 'fail') {
          const status = rule.answer === 'rate-limit' ? 429 : 500;
          requests.push({ method, path: url, status, ...tag });
          res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end(
            JSON.stringify({ error: { message: `injected ${status}`, httpCode: status, code: status } }),
          );
          return;
        }
        const headers: Record<string, string> = {};
        for (const name of ['x-api-key', 'content-type', 'idempotency-key', 'accept']) {
          const value = req.headers[name];
          if (typeof value === 'string') headers[name] = value;
        }
        const upstream = await fetch(`${target}${url}`, {
          method,
          headers,
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = Buffer.from(await upstream.arrayBuffer());
        requests.push({
          method,
          path: url,
          status: upstream.status,
          ...tag,
          replayed: upstream.headers.get('idempotent-replayed') === 'true',
        });
        if (rule?.answer === 'drop-after-forward') {
          req.socket.destroy();
          return;
        }
        const out: Record<string, string> = {};
        for (const name of ['content-type', 'retry-after', 'etag', 'idempotent-replayed']) {
          const value = upstream.headers.get(name);
          if (value !== null) out[name] = value;
        }
        res.writeHead(upstream.status, out).end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.afterTest(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    writes: () =>
      requests
        .filter((r) => r.method !== 'GET')
        .map(({ method, path, status }) => ({ method, path, status })),
    keys: () => requests.flatMap((r) => (r.key === undefined ? [] : [r.key])),
    once: (rule: Rule) => rules.push({ ...rule, once: true }),
    always: (rule: Rule) => rules.push({ ...rule, once: false }),
  };
}

/** A project with a published, empty version `docs`, and a proxy of its own in front of the app. */
async function world() {
  const { project, key } = await createWorld(t.deps);
  const version = await createVersion(t.deps, project.id, { name: 'Docs', slug: 'docs', published: true });
  const proxy = await startProxy(t.url);
  return { project, key, version, proxy };
}

/** A folder written from a map of relative paths to contents. */
function folder(files: Record<string, string>): string {
  const dir = t.tempDir('quire-sync-');
  write(dir, files);
  return dir;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

async function sync(dir: string, url: string, key: string, ...flags: string[]) {
  const { code, stdout, stderr } = await runQuireSync(
    { dir, url, key, version: 'docs' },
    flags.filter((f) => f !== '--terminal'),
    { stderrIsTerminal: flags.includes('--terminal') },
  );
  return parsed(code, stdout, stderr);
}

/** The same, with retries made quick: for a server that keeps failing. */
async function runWithFastRetries(dir: string, url: string, key: string) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (s: string) => (stdout += s), stderr: (s: string) => (stderr += s) };
  const policy = { retries: 1, backoffMs: 10, rateLimitWaits: 1, maxRetryAfterSeconds: 1, timeoutMs: 10_000 };
  const code = await runSync([dir, '--url', url, '--key', key, '--version', 'docs'], io, policy);
  return parsed(code, stdout, stderr);
}

function parsed(code: number, stdout: string, stderr: string) {
  const lines = stdout.split('\n').filter((l) => l !== '');
  const summary = lines.length === 1 ? (JSON.parse(lines[0] ?? '') as Summary) : null;
  return { code, stdout, stderr, summary: summary as Summary };
}

interface Summary {
  ok: boolean;
  dryRun: boolean;
  sections: { created: number; updated: number; unchanged: number };
  categories: { created: number };
  pages: Record<
    'created' | 'updated' | 'renamed' | 'published' | 'deleted' | 'unchanged' | 'notInDir',
    number
  >;
  references: { uploaded: number; published: number; unchanged: number };
  requests: { writes: number; retries: number; rateLimited: number };
  plan?: Array<Record<string, unknown>>;
  failures: Array<Record<string, unknown>>;
  warnings: Array<{ file: string; message: string }>;
}

const DOCS = {
  'Guides/settings.json': JSON.stringify({ title: 'Guides', slug: 'guides', position: 0 }),
  'Guides/1 Intro.md': '# Introduction\n\nWelcome.\n',
  'Guides/2 Setup.md': '---\ntitle: Setup\nslug: setup\n---\n\nInstall it.\n',
  'Guides/3 Basics.md': '---\ntype: category\ntitle: Basics\n---\n',
  'Guides/4 Usage.md': 'Use it.\n',
  'Guides/4 Usage/1 Advanced.md': '# Advanced use\n\nMore.\n',
  'Reference/1 API.md': '# API\n\nSee the reference.\n',
};

/** The version's pages as /all lists them, with their contents. */
async function pagesOf(key: string, versionId: number) {
  const api = client(t.app, key);
  const all = (await api.get(`/all?versionId=${versionId}`)).json<{
    page: Record<string, { slug: string; title: string; listed: boolean; path: string }>;
  }>();
  const pages: Record<
    string,
    { id: number; title: string; listed: boolean; draft: string | null; published: string | null }
  > = {};
  for (const [id, page] of Object.entries(all.page)) {
    const read = (await api.get(`/page/${id}`)).json<{
      contentDraft: string | null;
      contentPublished: string | null;
    }>();
    pages[page.path] = {
      id: Number(id),
      title: page.title,
      listed: page.listed,
      draft: read.contentDraft,
      published: read.contentPublished,
    };
  }
  return pages;
}

describe('quire sync', () => {
  it('fills an empty version, then a second run writes nothing', async () => {
    const { key, version, proxy } = await world();
    const dir = folder(DOCS);
    const first = await sync(dir, proxy.url, key);
    // Not a terminal: progress as plain lines, nothing else (no retries, no waits).
    expect(first.stderr.split('\n').filter((l) => !/^writing \d+\/\d+ \(\d+%\)$/.test(l))).toEqual(['']);
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({
      ok: true,
      sections: { created: 2 },
      categories: { created: 1 },
      pages: { created: 5, updated: 0, deleted: 0, unchanged: 0 },
      failures: [],
    });
    const pages = await pagesOf(key, version.id);
    expect(Object.keys(pages).sort()).toEqual([
      'docs/guides/advanced-use',
      'docs/guides/introduction',
      'docs/guides/setup',
      'docs/guides/usage',
      'docs/reference/api',
    ]);
    expect(pages['docs/guides/introduction']?.draft).toBe('# Introduction\n\nWelcome.');
    expect(pages['docs/guides/setup']).toMatchObject({
      title: 'Setup',
      draft: 'Install it.',
      published: null,
    });
    expect(pages['docs/guides/usage']?.title).toBe('Usage');

    // Every write carried a key of its own (no retry happened here).
    const keys = proxy.keys();
    expect(keys).toHaveLength(proxy.writes().length);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every((k) => /^[0-9a-f-]{36}$/.test(k))).toBe(true);

    const before = proxy.writes().length;
    const second = await sync(dir, proxy.url, key);
    expect(second.code).toBe(0);
    expect(second.summary).toMatchObject({
      sections: { created: 0, updated: 0, unchanged: 2 },
      pages: { created: 0, updated: 0, unchanged: 5 },
      requests: { writes: 0 },
    });
    expect(proxy.writes().length).toBe(before);
  });

  it('updates exactly the page whose file changed, and renames a page in place', async () => {
    const { key, version, proxy } = await world();
    const dir = folder(DOCS);
    expect((await sync(dir, proxy.url, key)).code).toBe(0);
    const before = await pagesOf(key, version.id);
    const setupId = before['docs/guides/setup']?.id ?? 0;
    const historyBefore = (await pageHistory(t.deps, setupId)).length;

    write(dir, { 'Guides/2 Setup.md': '---\ntitle: Setup\nslug: setup\n---\n\nInstall it twice.\n' });
    const mark = proxy.writes().length;
    const changed = await sync(dir, proxy.url, key);
    expect(changed.summary.pages).toMatchObject({ created: 0, updated: 1, unchanged: 4 });
    expect(proxy.writes().slice(mark)).toEqual([
      { method: 'PUT', path: `/api/v1/page/${setupId}`, status: 200 },
    ]);
    expect((await pagesOf(key, version.id))['docs/guides/setup']?.draft).toBe('Install it twice.');
    expect((await pageHistory(t.deps, setupId)).length).toBe(historyBefore + 1);

    // A file renamed (new title from its heading, so a new slug) with its body unchanged: the same page.
    const introId = before['docs/guides/introduction']?.id;
    fs.rmSync(path.join(dir, 'Guides/1 Intro.md'));
    write(dir, { 'Guides/1 Welcome.md': '---\ntitle: Welcome\n---\n# Introduction\n\nWelcome.\n' });
    const renamed = await sync(dir, proxy.url, key, '--prune');
    expect(renamed.summary.pages).toMatchObject({ created: 0, renamed: 1, deleted: 0 });
    const after = await pagesOf(key, version.id);
    expect(after['docs/guides/welcome']).toMatchObject({ id: introId, title: 'Welcome' });
    expect(after['docs/guides/introduction']).toBeUndefined();
    expect((await sync(dir, proxy.url, key, '--prune')).summary.requests.writes).toBe(0);
  });

  it('reads export envelopes, CRLF files and plain Markdown alike, and warns about what it ignores', async () => {
    const { key, version, proxy } = await world();
    const dir = folder({
      'README.md': 'Not a section.\n',
      'Notes/1 Exported.md':
        '---\ntitle: Exported\nslug: exported\n---draft\n\nDraft body.\n\n---published\n\nOld body.\n',
      'Notes/2 Windows.md': '# Windows\r\n\r\nLine one.\r\nLine two.\r\n',
      'Notes/3 plain-file.md': 'No heading here.\n',
      'Notes/4 Image.png': 'not a page',
    });
    const first = await sync(dir, proxy.url, key);
    expect(first.code).toBe(0);
    expect(first.summary.pages.created).toBe(3);
    expect(first.summary.warnings.map((w) => w.file).sort()).toEqual(['Notes/4 Image.png', 'README.md']);
    const pages = await pagesOf(key, version.id);
    expect(pages['docs/notes/exported']).toMatchObject({ title: 'Exported', draft: 'Draft body.' });
    expect(pages['docs/notes/windows']).toMatchObject({ title: 'Windows' });
    expect(pages['docs/notes/plain-file']).toMatchObject({ title: 'plain-file', draft: 'No heading here.' });
    const again = await sync(dir, proxy.url, key);
    expect(again.summary.pages).toMatchObject({ unchanged: 3 });
    expect(again.summary.requests.writes).toBe(0);
  });

  it('deletes a page gone from the folder only with --prune', async () => {
    const { key, version, proxy } = await world();
    const dir = folder(DOCS);
    expect((await sync(dir, proxy.url, key)).code).toBe(0);
    fs.rmSync(path.join(dir, 'Reference/1 API.md'));

    const kept = await sync(dir, proxy.url, key);
    expect(kept.summary.pages).toMatchObject({ deleted: 0, notInDir: 1 });
    expect(kept.summary.requests.writes).toBe(0);
    expect((await pagesOf(key, version.id))['docs/reference/api']).toBeDefined();

    const pruned = await sync(dir, proxy.url, key, '--prune', '--terminal');
    expect(pruned.code).toBe(0);
    expect(pruned.stderr).toMatch(/\rwriting \[#+\] 100% 1\/1\n/);
    expect(pruned.summary.pages).toMatchObject({ deleted: 1, notInDir: 0 });
    expect((await pagesOf(key, version.id))['docs/reference/api']).toBeUndefined();
  });

  it('prints the plan with --dry-run and changes nothing', async () => {
    const { key, version, proxy } = await world();
    const dir = folder(DOCS);
    const dry = await sync(dir, proxy.url, key, '--dry-run', '--publish');
    expect(dry.code).toBe(0);
    expect(proxy.writes()).toEqual([]);
    expect(dry.summary).toMatchObject({
      dryRun: true,
      sections: { created: 2 },
      pages: { created: 5, published: 5 },
    });
    expect(dry.summary.plan).toContainEqual({
      action: 'create',
      type: 'page',
      section: 'guides',
      slug: 'setup',
      title: 'Setup',
      file: 'Guides/2 Setup.md',
    });
    expect(dry.summary.plan).toContainEqual({
      action: 'create',
      type: 'category',
      section: 'guides',
      title: 'Basics',
    });
    expect(await pagesOf(key, version.id)).toEqual({});
  });

  it('publishes with --publish, keeping a page DIR wants unlisted out of the index', async () => {
    const { key, version, proxy } = await world();
    const dir = folder({
      ...DOCS,
      'Guides/5 Hidden.md': '---\ntitle: Hidden\nlisted: false\n---\nSecret.\n',
    });
    const first = await sync(dir, proxy.url, key, '--publish');
    expect(first.code).toBe(0);
    expect(first.summary.pages).toMatchObject({ created: 6, published: 6 });
    const pages = await pagesOf(key, version.id);
    expect(pages['docs/guides/setup']).toMatchObject({ draft: null, published: 'Install it.', listed: true });
    expect(pages['docs/guides/hidden']).toMatchObject({ published: 'Secret.', listed: false });
    expect((await sync(dir, proxy.url, key, '--publish')).summary.requests.writes).toBe(0);

    write(dir, { 'Reference/1 API.md': '# API\n\nSee the new reference.\n' });
    const again = await sync(dir, proxy.url, key, '--publish');
    expect(again.summary.pages).toMatchObject({ updated: 1, published: 1, unchanged: 5 });
    expect((await pagesOf(key, version.id))['docs/reference/api']).toMatchObject({
      draft: null,
      published: '# API\n\nSee the new reference.',
    });
  });

  it('uploads references, leaves them alone unchanged, and uploads them again when changed', async () => {
    const { key, version, proxy } = await world();
    const spec = (v: string) => `openapi: 3.0.3\ninfo:\n  title: Pets\n  version: "${v}"\npaths: {}\n`;
    const json = { openapi: '3.0.3', info: { title: 'Stores', version: '1' }, paths: {} };
    const dir = folder({ 'refs/pets.yaml': spec('1'), 'refs/stores.json': JSON.stringify(json, null, 2) });
    const first = await sync(dir, proxy.url, key, '--publish');
    expect(first.code).toBe(0);
    // Uploaded with --publish: both uploaded and published.
    expect(first.summary.references).toEqual({ uploaded: 2, published: 2, unchanged: 0 });
    const second = await sync(dir, proxy.url, key, '--publish');
    expect(second.summary.references).toEqual({ uploaded: 0, published: 0, unchanged: 2 });
    expect(second.summary.requests.writes).toBe(0);

    write(dir, { 'refs/pets.yaml': spec('2') });
    const third = await sync(dir, proxy.url, key, '--publish');
    expect(third.summary.references).toEqual({ uploaded: 1, published: 1, unchanged: 1 });
    const all = (await client(t.app, key).get(`/all?versionId=${version.id}`)).json<{
      reference: Record<string, { title: string }>;
    }>();
    const petsId = Object.entries(all.reference).find(([, r]) => r.title === 'Pets')?.[0];
    const stored = await client(t.app, key).get(`/reference/${petsId}/definition`);
    expect(stored.body).toBe(spec('2'));
  });

  it('waits out a 429 and completes', async () => {
    const { key, version, proxy } = await world();
    const dir = folder(DOCS);
    proxy.once({ method: 'POST', path: /\/page$/, answer: 'rate-limit' });
    const started = Date.now();
    const result = await sync(dir, proxy.url, key);
    expect(result.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(result.summary.requests.rateLimited).toBe(1);
    expect(result.summary.pages.created).toBe(5);
    expect(result.stderr).toMatch(/rate limited on POST .*waiting 1 s/);
    expect(Object.keys(await pagesOf(key, version.id))).toHaveLength(5);
  });

  it('retries a write whose answer was lost, creating the page once (Idempotency-Key)', async () => {
    const { key, version, proxy } = await world();
    const dir = folder({ 'Guides/1 Intro.md': '# Intro\n\nHello.\n' });
    proxy.once({ method: 'POST', path: /\/page$/, answer: 'drop-after-forward' });
    const result = await sync(dir, proxy.url, key);
    expect(result.code).toBe(0);
    expect(result.summary.requests.retries).toBe(1);
    const posts = proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/page'));
    expect(posts.map((p) => p.status)).toEqual([200, 200]);
    expect(posts[0]?.key).toBeDefined();
    expect(posts[1]?.key).toBe(posts[0]?.key);
    expect(posts.map((p) => p.replayed)).toEqual([false, true]);
    const pages = await pagesOf(key, version.id);
    expect(Object.keys(pages)).toEqual(['docs/guides/intro']);
  });

  it('reports a failing write in the summary and exits non-zero, having done the rest', async () => {
    const { key, version, proxy } = await world();
    const dir = folder(DOCS);
    proxy.always({ method: 'POST', path: /\/documentation\/\d+\/page$/, answer: 'fail' });
    const result = await runWithFastRetries(dir, proxy.url, key);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/planned writes failed/);
    expect(result.summary.ok).toBe(false);
    expect(result.summary.sections.created).toBe(2);
    expect(result.summary.failures).toContainEqual(
      expect.objectContaining({
        action: 'create',
        type: 'page',
        slug: 'setup',
        message: expect.stringMatching(/answered 500/),
      }),
    );
    expect(await pagesOf(key, version.id)).toEqual({});
  });

  it('fills a section that exists, making the category a page needs, and moves a file between sections', async () => {
    const { key, version, proxy } = await world();
    const guides = await createDocumentation(t.deps, version.id, { title: 'Guides', slug: 'guides' });
    const dir = folder({
      'Guides/1 Basics.md': '---\ntype: category\ntitle: Basics\n---\n',
      'Guides/2 Usage.md': 'Use it.\n',
      'Other/1 Moving.md': 'I move.\n',
    });
    const first = await sync(dir, proxy.url, key);
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({
      sections: { created: 1, unchanged: 1 },
      categories: { created: 1 },
    });
    const categories = await t.deps.database.db
      .selectFrom('categories')
      .select(['id', 'title'])
      .where('documentation_id', '=', guides.id)
      .execute();
    expect(categories.map((c) => c.title)).toEqual(['Basics']);
    const usage = await t.deps.database.db
      .selectFrom('pages')
      .select('category_id')
      .where('documentation_id', '=', guides.id)
      .where('slug', '=', 'usage')
      .executeTakeFirst();
    expect(usage?.category_id).toBe(categories[0]?.id);

    // Moved to another section: a page of that section, and the old one goes with --prune.
    fs.rmSync(path.join(dir, 'Other'), { recursive: true });
    write(dir, { 'Guides/3 Moving.md': 'I move.\n' });
    const moved = await sync(dir, proxy.url, key, '--prune');
    expect(moved.summary.pages).toMatchObject({ created: 1, deleted: 1, unchanged: 1 });
    expect(Object.keys(await pagesOf(key, version.id)).sort()).toEqual([
      'docs/guides/moving',
      'docs/guides/usage',
    ]);

    // A folder name does not retitle a section; settings.json does.
    write(dir, { 'Guides/settings.json': JSON.stringify({ title: 'User guides', published: false }) });
    const retitled = await sync(dir, proxy.url, key);
    expect(retitled.summary.sections).toEqual({ created: 0, updated: 1, unchanged: 0 });
    const sections = (await client(t.app, key).get(`/version/${version.id}/documentation`)).json<
      Array<{ slug: string; title: string; published: boolean }>
    >();
    expect(sections.find((s) => s.slug === 'guides')).toMatchObject({
      title: 'User guides',
      published: false,
    });
    expect((await sync(dir, proxy.url, key)).summary.requests.writes).toBe(0);
  });

  it('refuses bad arguments with one line and exit 2, and a missing version with exit 1', async () => {
    const { key, proxy } = await world();
    const dir = folder(DOCS);
    const run = (...argv: string[]) => runQuire(['sync', ...argv]);
    for (const [argv, message] of [
      [[dir, '--key', key, '--version', 'docs'], /--url is required/],
      [[dir, '--url', proxy.url, '--version', 'docs'], /--key is required/],
      [[dir, '--url', proxy.url, '--key', key], /--version is required/],
      [[path.join(dir, 'nope'), '--url', proxy.url, '--key', key, '--version', 'docs'], /is not a directory/],
      [[dir, '--url', 'ftp://x', '--key', key, '--version', 'docs'], /--url must be an http or https URL/],
      [[dir, '--url', 'not a url', '--key', key, '--version', 'docs'], /--url must be an http or https URL/],
      [[dir, '--url', proxy.url, '--key', key, '--version', 'docs', '--force'], /unknown option '--force'/],
    ] as const) {
      const result = await run(...argv);
      expect(result, argv.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    const missing = await run(dir, '--url', proxy.url, '--key', key, '--version', 'nope');
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/no version 'nope'/);
    const unreadable = folder({});
    fs.mkdirSync(path.join(unreadable, 'A'));
    fs.writeFileSync(path.join(unreadable, 'A', '1 Bad.md'), Buffer.from([0xff, 0xfe, 0x41, 0x00]));
    const bad = await run(unreadable, '--url', proxy.url, '--key', key, '--version', 'docs');
    expect(bad).toMatchObject({
      code: 1,
      stdout: '',
      stderr: "quire: sync: 'A/1 Bad.md' is not UTF-8 text\n",
    });
    expect(proxy.writes()).toEqual([]);
  });
});
