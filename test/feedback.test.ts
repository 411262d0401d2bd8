import { describe, expect, it } from 'vitest';
import { createDocumentation, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';
import { listFeedback, sendFeedback } from './site/feedback-helpers.ts';
import { sitePage } from './site/site-helpers.ts';

const t = useTestApp({ env: { RATE_LIMIT_SCALE: '100' } });

interface Feedback {
  id: number;
  pageId: number;
  versionId: number;
  helpful: boolean;
  message: string | null;
  created: string;
}
interface FeedbackList {
  data: Feedback[];
  count: number;
  total: number;
  cursor: string | null;
}

/** A public project with pages `start` and `other` in v1, and `start` in v2; feedback is sent through the site. */
async function project() {
  const w = await createWorld(t.deps, { access: 'public' });
  const start = await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
  const other = await sitePage(t.app, w.key, w.documentation.id, { title: 'Other', slug: 'other' });
  const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
  const guides2 = await createDocumentation(t.deps, v2.id, {
    title: 'Guides',
    slug: 'guides',
    published: true,
  });
  const start2 = await sitePage(t.app, w.key, guides2.id, { title: 'Start', slug: 'start' });
  const root = `/sites/${w.project.id}`;
  const send = async (path: string, helpful: 'yes' | 'no', message?: string) => {
    const res = await sendFeedback(t.app, root, { page: path, helpful, ...(message ? { message } : {}) });
    expect(res.statusCode, res.body).toBe(303);
    t.clock.advance(1000);
  };
  return { ...w, start, other, v2, start2, root, send };
}

describe('GET /feedback', () => {
  it('lists feedback newest first, page by page, with the feedback.read permission', async () => {
    const p = await project();
    await p.send('/v1/guides/start', 'yes', 'Great');
    await p.send('/v1/guides/other', 'no');
    await p.send('/v1/guides/start', 'no', 'Missing a step');
    await p.send('/v2/guides/start', 'yes');
    await p.send('/v1/guides/start', 'yes');

    const all = await listFeedback(t.app, p.key);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.headers['x-ratelimit-limit']).toBe(String(600 * 100));
    const body = all.json<FeedbackList>();
    expect(body.total).toBe(5);
    expect(body.cursor).toBeNull();
    expect(body.data.map((f) => [f.pageId, f.helpful, f.message])).toEqual([
      [p.start, true, null],
      [p.start2, true, null],
      [p.start, false, 'Missing a step'],
      [p.other, false, null],
      [p.start, true, 'Great'],
    ]);
    expect(body.data[0]).toMatchObject({ versionId: p.version.id, created: '2026-11-21T10:15:04+0000' });
    expect(body.data[1]?.versionId).toBe(p.v2.id);

    // One page's feedback, two at a time: the cursor leads on until it is null.
    const seen: Feedback[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const query: string = `page_id=${p.start}&hits=2${cursor === '' ? '' : `&cursor=${cursor}`}`;
      const res = await listFeedback(t.app, p.key, query);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<FeedbackList>();
      expect(page.total).toBe(3);
      expect(page.count).toBe(page.data.length);
      seen.push(...page.data);
      cursor = page.cursor;
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen.map((f) => f.message)).toEqual([null, 'Missing a step', 'Great']);
    expect(seen.map((f) => f.id)).toEqual([...seen.map((f) => f.id)].sort((a, b) => b - a));
    // New feedback does not move a cursor given before it.
    const first = (await listFeedback(t.app, p.key, `page_id=${p.start}&hits=1`)).json<FeedbackList>();
    await p.send('/v1/guides/start', 'no');
    const next = (
      await listFeedback(t.app, p.key, `page_id=${p.start}&hits=1&cursor=${first.cursor ?? ''}`)
    ).json<FeedbackList>();
    expect(next.data[0]?.message).toBe('Missing a step');
  });

  it('needs feedback.read', async () => {
    const p = await project();
    const { key } = await createKey(t.deps, p.project.id, { permissions: ['project.read', 'page.read'] });
    const res = await listFeedback(t.app, key);
    expect(res.statusCode).toBe(403);
    expect(expectErrorShape(res).message).toBe("This API key lacks the permission 'feedback.read'.");
    const { key: reader } = await createKey(t.deps, p.project.id, { permissions: ['feedback.read'] });
    expect((await listFeedback(t.app, reader)).statusCode).toBe(200);
  });

  it('answers 404 for a page that is unknown, deleted or another project’s; 400 for bad values', async () => {
    const p = await project();
    await p.send('/v1/guides/other', 'yes');
    const elsewhere = await project();
    expect((await listFeedback(t.app, p.key, `page_id=${elsewhere.start}`)).statusCode).toBe(404);
    expect((await listFeedback(t.app, p.key, 'page_id=999999')).statusCode).toBe(404);
    expect((await client(t.app, p.key).delete(`/page/${p.other}`)).statusCode).toBe(200);
    const deleted = await listFeedback(t.app, p.key, `page_id=${p.other}`);
    expect(deleted.statusCode).toBe(404);
    expect(expectErrorShape(deleted).message).toBe(`Page ${p.other} not found.`);
    // A deleted page's feedback is in no list.
    expect((await listFeedback(t.app, p.key)).json<FeedbackList>().total).toBe(0);
    for (const query of [
      'page_id=0',
      'page_id=x',
      'hits=0',
      'hits=101',
      'cursor=nonsense',
      'page_id=2147483648',
    ]) {
      const res = await listFeedback(t.app, p.key, query);
      expect(res.statusCode, query).toBe(400);
      expectErrorShape(res);
    }
  });

  it('shows a version-limited key only the feedback of its versions', async () => {
    const p = await project();
    await p.send('/v1/guides/start', 'yes');
    await p.send('/v2/guides/start', 'no', 'v2 only');
    const { key } = await createKey(t.deps, p.project.id, { versions: [p.version.id] });
    const mine = (await listFeedback(t.app, key)).json<FeedbackList>();
    expect(mine.data.map((f) => f.versionId)).toEqual([p.version.id]);
    expect(mine.total).toBe(1);
    expect(JSON.stringify(mine)).not.toContain('v2 only');
    const hidden = await listFeedback(t.app, key, `page_id=${p.start2}`);
    expect(hidden.statusCode).toBe(403);
    const { key: none } = await createKey(t.deps, p.project.id, { versions: [] });
    expect((await listFeedback(t.app, none)).json<FeedbackList>().data).toEqual([]);
  });
});

describe('the version report (N3) with feedback', () => {
  it('counts yes and no answers per page of the version', async () => {
    const p = await project();
    await p.send('/v1/guides/start', 'yes');
    await p.send('/v1/guides/start', 'yes');
    await p.send('/v1/guides/start', 'no');
    await p.send('/v2/guides/start', 'no');
    const res = await client(t.app, p.key).get(`/version/${p.version.id}/report`);
    expect(res.statusCode, res.body).toBe(200);
    const pages = res.json<Array<{ id: number; helpful: number; notHelpful: number }>>();
    expect(pages.map(({ id, helpful, notHelpful }) => ({ id, helpful, notHelpful }))).toEqual([
      { id: p.start, helpful: 2, notHelpful: 1 },
      { id: p.other, helpful: 0, notHelpful: 0 },
    ]);
    const v2 = (await client(t.app, p.key).get(`/version/${p.v2.id}/report`)).json<
      Array<{ id: number; helpful: number; notHelpful: number }>
    >();
    expect(v2.map(({ id, helpful, notHelpful }) => ({ id, helpful, notHelpful }))).toEqual([
      { id: p.start2, helpful: 0, notHelpful: 1 },
    ]);
  });
});
