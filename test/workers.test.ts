import { describe, expect, it } from 'vitest';
import { stringify as stringifyYaml } from 'yaml';
import { featurePage } from '../bench/fixtures/feature-page.ts';
import { bigDefinition, bigPage } from '../bench/fixtures/big-inputs.ts';
import { renderContent } from '../src/content/index.ts';
import { WorkerPool } from '../src/workers/pool.ts';
import { WORKER_RENDER_CHARS } from '../src/modules/pages/render-engine.ts';
import { createWorld } from './helpers/factories.ts';
import { openapiJson, readDefinition, upload } from './helpers/references.ts';
import { buildTestApp, client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();
const MiB = 1024 * 1024;
describe('heavy work in worker threads', () => {
  it('validates a large upload and converts it off the event loop, with the same answers', async () => {
    const w = await createWorld(t.deps);
    const text = JSON.stringify(bigDefinition(1 * MiB, 'Large API'), null, 2);
    const res = await upload(t.app, w.key, w.version.id, text, { as: 'application/json' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ title: 'Large API', slug: 'large-api' });
    const id = res.json<{ id: number }>().id;
    const stored = await readDefinition(t.app, w.key, id);
    expect(stored.body).toBe(text);
    const yaml = await readDefinition(t.app, w.key, id, { format: 'yaml' });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.body.startsWith('openapi: 3.1.0\ninfo:\n  title: Large API\n')).toBe(true);
    // The worker's refusal keeps its message and details across the thread boundary.
    const broken = JSON.parse(text) as { paths: Record<string, unknown> };
    broken.paths['/broken'] = { get: { responses: { '200': {} } } };
    const refused = await upload(t.app, w.key, w.version.id, JSON.stringify(broken), {
      as: 'application/json',
    });
    expect(refused.statusCode).toBe(400);
    expect(expectErrorShape(refused)).toMatchObject({
      message: expect.stringContaining('/paths/~1broken/get/responses/200'),
      details: [
        {
          field: 'file#/paths/~1broken/get/responses/200',
          message: expect.stringContaining("'description'"),
        },
      ],
    });
  });

  it('renders a page above the worker threshold in a thread, exactly as the engine does in place', async () => {
    const w = await createWorld(t.deps);
    const one = featurePage();
    const content = Array.from(
      { length: Math.ceil((WORKER_RENDER_CHARS * 1.5) / one.length) },
      () => one,
    ).join('\n\n');
    expect(content.length).toBeGreaterThan(WORKER_RENDER_CHARS);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Long page',
      content,
    });
    expect(created.statusCode).toBe(200);
    const id = created.json<{ id: number }>().id;
    for (const format of ['html', 'markdown', 'text'] as const) {
      const res = await api.get(`/page/${id}?format=${format}`);
      expect(res.statusCode, format).toBe(200);
      expect(res.json<{ contentDraft: string }>().contentDraft, format).toBe(
        renderContent(content, format, { pageTitles: new Map(), variables: {} }),
      );
    }
    expect(t.deps.pages.renderStats().renders).toBe(3);
  });

  it('reads a large page in every format, by id and by slugs, as the engine renders it in place', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const target = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Installation — überall',
      slug: 'installation',
      content: 'Short.',
    });
    expect(target.statusCode).toBe(200);
    // Non-ASCII text and [auto$] links to a page that exists: the thread reads the UTF-8 bytes,
    // and the link titles it found come back for the lookup the render needs.
    const block = `${featurePage()}\n\nGrüße, 東京, [auto$](/guides/installation).\n`;
    const large = (n: number) =>
      Array.from({ length: Math.ceil((WORKER_RENDER_CHARS * n) / block.length) }, () => block).join('\n');
    const published = `${large(1.2)}\n\nPublished.`;
    const draft = `${large(1.5)}\n\nDraft.`;
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Long page',
      content: published,
    });
    const id = created.json<{ id: number }>().id;
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    expect((await api.put(`/page/${id}`, { content: draft })).statusCode).toBe(200);

    const ctx = {
      pageTitles: new Map([['guides/installation', 'Installation — überall']]),
      variables: {},
    };
    for (const format of ['darkdown', 'html', 'markdown', 'text'] as const) {
      const expected = (source: string) =>
        format === 'darkdown' ? source : renderContent(source, format, ctx);
      const byId = await api.get(`/page/${id}?format=${format}`);
      const bySlugs = await api.get(
        `/page?version_slug=v1&documentation_slug=guides&page_slug=long-page&format=${format}`,
      );
      for (const res of [byId, bySlugs]) {
        expect(res.statusCode, format).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.json(), format).toEqual({
          id,
          listed: true,
          title: 'Long page',
          created: expect.any(String),
          updated: expect.any(String),
          slug: 'long-page',
          contentDraft: expected(draft),
          contentPublished: expected(published),
          path: 'v1/guides/long-page',
        });
      }
      expect(byId.body, format).toBe(bySlugs.body);
      // The link shows the title of the page it names, which only a lookup could give.
      if (format !== 'darkdown')
        expect(byId.json<{ contentDraft: string }>().contentDraft).toContain('Installation — überall');
    }
    // Rendered once per format and content: the second read (by slugs) came from the cache.
    expect(t.deps.pages.renderStats().renders).toBe(3 * 2);
  });

  it('answers 503 when a large page cannot be rendered within the per-task time bound', async () => {
    // The bound counts from the task's start in a thread (this pool's first thread starts meanwhile).
    const quick = await buildTestApp({ env: { WORKER_TASK_TIMEOUT: '100', WORKER_THREADS: '1' } });
    try {
      const w = await createWorld(quick.deps);
      const api = client(quick.app, w.key);
      const content = bigPage(2_000_000);
      const created = await api.post(`/documentation/${w.documentation.id}/page`, { title: 'Slow', content });
      const res = await api.get(`/page/${created.json<{ id: number }>().id}?format=html`);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(expectErrorShape(res).message).toBe(
        'The page could not be rendered: it did not finish within 0.1 s.',
      );
    } finally {
      await quick.close();
    }
  });

  it('refuses an upload whose check needs more than the per-task memory bound with 400, and goes on', async () => {
    // A YAML document parses into many small nodes: its heap grows step by step until the thread's
    // bound stops it (2 MiB of YAML needs several times 48 MiB), and a new thread takes its place.
    const small = await buildTestApp({ env: { WORKER_MEMORY_MB: '48', WORKER_THREADS: '1' } });
    try {
      const w = await createWorld(small.deps);
      const text = stringifyYaml(bigDefinition(2 * MiB, 'Heavy API'));
      const res = await upload(small.app, w.key, w.version.id, text, { as: 'application/yaml' });
      expect(res.statusCode).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        message: 'The definition could not be checked: it needed more than 48 MiB of memory.',
        details: [{ field: 'file' }],
      });
      const light = stringifyYaml(bigDefinition(20_000, 'Light API'));
      const next = await upload(small.app, w.key, w.version.id, light, { as: 'application/yaml' });
      expect(next.statusCode).toBe(201);
      expect(next.json()).toMatchObject({ title: 'Light API' });
    } finally {
      await small.close();
    }
  });

  it('refuses an upload that takes longer than the per-task time bound with 400', async () => {
    const quick = await buildTestApp({ env: { WORKER_TASK_TIMEOUT: '100', WORKER_THREADS: '1' } });
    try {
      const w = await createWorld(quick.deps);
      const text = JSON.stringify(bigDefinition(3 * MiB, 'Slow API'));
      const res = await upload(quick.app, w.key, w.version.id, text, { as: 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(expectErrorShape(res)).toMatchObject({
        message: 'The definition could not be checked: it did not finish within 0.1 s.',
        details: [{ field: 'file' }],
      });
    } finally {
      await quick.close();
    }
  });

  it('answers 503 to an upload that waited too long for a busy thread, and takes the file later', async () => {
    const busy = await buildTestApp({
      env: { WORKER_THREADS: '1', WORKER_TASK_TIMEOUT: '60000' },
      overrides: { workerQueueTimeoutMs: 100 },
    });
    try {
      await busy.deps.workers.warm();
      const w = await createWorld(busy.deps);
      // A check that runs for some hundreds of milliseconds holds the only thread.
      const slowText = JSON.stringify(bigDefinition(5 * MiB, 'Slow API'));
      const slow = upload(busy.app, w.key, w.version.id, slowText, { as: 'application/json' });
      // Its turn is taken once the body is read and the check goes to the pool.
      while (busy.deps.workers.running() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const waiting = await upload(busy.app, w.key, w.version.id, openapiJson('Waiting API'));
      expect(waiting.statusCode).toBe(503);
      expect(waiting.headers['retry-after']).toBe('5');
      expect(expectErrorShape(waiting).message).toBe(
        'The definition could not be checked: it waited 0.1 s for a free worker thread.',
      );
      expect(busy.deps.workers.running()).toBe(1);
      expect((await slow).statusCode).toBe(201);
      const again = await upload(busy.app, w.key, w.version.id, openapiJson('Waiting API'));
      expect(again.statusCode).toBe(201);
      expect(again.json()).toMatchObject({ title: 'Waiting API' });
    } finally {
      await busy.close();
    }
  }, 120_000);
});

describe('the worker pool', () => {
  it("counts a task's time from its start in a thread, not from a thread's own start", async () => {
    // A new thread loads the content engine and the OpenAPI tools before its first task: longer
    // than this bound, which the trivial task itself is far within.
    const pool = new WorkerPool({ threads: 1, taskTimeoutMs: 500, memoryMb: 256 });
    try {
      expect(pool.running()).toBe(0);
      const began = performance.now();
      const result = await pool.run({ kind: 'inspect', source: '# Title\n\nSee [auto$](/guides/intro).' });
      const took = performance.now() - began;
      expect(result).toMatchObject({ kind: 'inspect', linkTargets: ['guides/intro'] });
      expect(took).toBeGreaterThan(500);
      expect(pool.running()).toBe(0);
    } finally {
      await pool.close();
    }
  });

  it('stops a task that runs past its bound, and gives up one that waits past its own', async () => {
    // No warm-up: the first thread starts within the task's wait, outside the task's time.
    const pool = new WorkerPool({ threads: 1, taskTimeoutMs: 50, queueTimeoutMs: 60_000, memoryMb: 256 });
    try {
      const heavy = pool.run({ kind: 'render', source: bigPage(2_000_000), format: 'html', ctx: {} });
      // Queued behind it: when the stopped thread goes, a new one must start and take it, though
      // the pool keeps no thread and nothing else is submitted.
      const next = pool.run({ kind: 'inspect', source: 'x' });
      await expect(heavy).rejects.toMatchObject({
        reason: 'timeout',
        message: 'did not finish within 0.05 s',
      });
      expect(await next).toMatchObject({ kind: 'inspect' });
    } finally {
      await pool.close();
    }
    const waiting = new WorkerPool({ threads: 1, taskTimeoutMs: 20_000, queueTimeoutMs: 50, memoryMb: 256 });
    try {
      // The render holds the only turn from now until it ends, its thread's start included.
      const heavy = waiting.run({ kind: 'render', source: bigPage(1_000_000), format: 'html', ctx: {} });
      await expect(waiting.run({ kind: 'inspect', source: 'x' })).rejects.toMatchObject({
        reason: 'busy',
        message: 'waited 0.05 s for a free worker thread',
      });
      expect(typeof (await heavy)).toBe('object');
    } finally {
      await waiting.close();
    }
  }, 120_000);
});
