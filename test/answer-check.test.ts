import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { PageSchema } from '../src/modules/pages/pages.schemas.ts';
import { adminContext, createWorld } from './helpers/factories.ts';
import { checkAnswers, newSink, suiteAnswers, type AnswerSink } from './helpers/answer-check.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/**
 * The suite's own check, with the answers it saw counted: the routes that send JSON they
 * serialised themselves are checked like the others (decision 0026).
 */
describe('the answer check of the test apps', () => {
  it('checks the answers of the six routes that send pre-serialised JSON', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Install',
      slug: 'install',
      content: '# Install\n\nRun the installer.',
    });
    expect(created.statusCode, created.body).toBe(200);
    const page = created.json<{ id: number }>();
    expect((await api.put(`/page/${page.id}/publish`)).statusCode).toBe(200);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    const changelog = await t.deps.changelogs.create(ctx, { title: 'Release notes' });

    const reads = [
      [`/page/${page.id}?format=html`, 'GET /api/v1/page/:id 200'],
      [`/page?version_slug=v1&documentation_slug=guides&page_slug=install`, 'GET /api/v1/page 200'],
      [`/page/${page.id}/history/1?format=text`, 'GET /api/v1/page/:id/history/:revision 200'],
      ['/all', 'GET /api/v1/all 200'],
      ['/search?query=installer', 'GET /api/v1/search 200'],
      [`/changelog/${changelog.id}/post`, 'GET /api/v1/changelog/:id/post 200'],
    ] as const;
    for (const [url, answer] of reads) {
      const res = await api.get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      expect(suiteAnswers.checked.get(answer), answer).toBe(1);
    }
    // Answers serialised from their schema are checked too; an error answer is not (its body is
    // the error handler's, one for all).
    expect(suiteAnswers.checked.get('POST /api/v1/documentation/:id/page 200')).toBe(1);
    expect((await api.get('/page/999999')).statusCode).toBe(404);
    expect([...suiteAnswers.checked.keys()].some((answer) => answer.endsWith(' 404'))).toBe(false);
  });
});

/** An app of the test's deps whose answers go to `sink`, with one route that answers `body` as JSON. */
async function appAnswering(sink: AnswerSink, declared: boolean): Promise<FastifyInstance> {
  return buildApp(t.deps, {
    logger: false,
    instrument: (app) => {
      checkAnswers(sink)(app);
      app.post<{ Body: { text: string } }>(
        '/drift',
        { schema: declared ? { response: { 200: PageSchema } } : {} },
        (request, reply) => reply.type('application/json; charset=utf-8').send(request.body.text),
      );
    },
  });
}

const PAGE = {
  id: 1,
  listed: true,
  title: 'Install',
  created: '2026-11-21T10:15:00+0000',
  updated: '2026-11-21T10:15:00+0000',
  slug: 'install',
  contentDraft: null,
  contentPublished: '# Install',
  path: 'v1/guides/install',
};

describe('a body that drifts from its schema', () => {
  it('is reported with its route, status and what is wrong, and a matching one is not', async () => {
    const sink = newSink();
    const app = await appAnswering(sink, true);
    try {
      const answer = async (body: unknown) => {
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        const res = await app.inject({ method: 'POST', url: '/drift', payload: { text } });
        expect(res.statusCode).toBe(200);
        return sink.problems.splice(0).map((p) => `${p.answer}: ${p.problem}`);
      };
      expect(await answer(PAGE)).toEqual([]);
      expect(await answer({ ...PAGE, extra: true })).toEqual([
        expect.stringMatching(/^POST \/drift 200: .*additional properties.*"extra"/),
      ]);
      const { path: _path, ...withoutPath } = PAGE;
      expect(await answer(withoutPath)).toEqual([expect.stringMatching(/required.*"path"/)]);
      expect(await answer({ ...PAGE, contentDraft: 3 })).toEqual([
        expect.stringMatching(/\/contentDraft must be string/),
      ]);
      expect(await answer('{"id":1,')).toEqual([expect.stringMatching(/not JSON/)]);
      expect(sink.checked.get('POST /drift 200')).toBe(5);
    } finally {
      await app.close();
    }
  });

  it('is reported when the route declares no schema for the status it answers', async () => {
    const sink = newSink();
    const app = await appAnswering(sink, false);
    try {
      await app.inject({ method: 'POST', url: '/drift', payload: { text: JSON.stringify(PAGE) } });
      expect(sink.problems).toEqual([
        { answer: 'POST /drift 200', problem: 'no response schema is declared for 200' },
      ]);
    } finally {
      await app.close();
    }
  });
});
