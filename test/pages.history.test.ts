import { describe, expect, it } from 'vitest';
import { createKey, createUser, createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

interface RevisionList {
  data: Array<{
    revision: number;
    operation: string;
    message: string;
    title: string;
    slug: string;
    user: unknown;
  }>;
  count: number;
  total: number;
  cursor: string | null;
}

describe('page history', () => {
  it('lists revisions newest first with the user of the key that made each, a page at a time', async () => {
    const w = await createWorld(t.deps);
    const user = await createUser(t.deps, w.project.id, { name: 'Ada', email: 'ada@example.com' });
    const { key: adas } = await createKey(t.deps, w.project.id, { userId: user.id });
    const created = await client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'Intro',
      content: 'one',
    });
    const id = created.json<{ id: number }>().id;
    await client(t.app, adas).put(`/page/${id}`, { content: 'two', message: 'Second draft' });
    await client(t.app, adas).put(`/page/${id}/publish`);
    await client(t.app, w.key).put(`/page/${id}`, { title: 'Introduction' });

    const api = client(t.app, w.key);
    const first = await api.get(`/page/${id}/history?hits=3`);
    expect(first.statusCode).toBe(200);
    const list = first.json<RevisionList>();
    expect(list).toMatchObject({ count: 3, total: 4 });
    expect(list.data).toEqual([
      expect.objectContaining({
        revision: 4,
        operation: 'update',
        title: 'Introduction',
        slug: 'introduction',
        user: null,
      }),
      expect.objectContaining({
        revision: 3,
        operation: 'publish',
        message: 'Published using API',
        user: { id: user.id, email: 'ada@example.com', name: 'Ada' },
      }),
      expect.objectContaining({ revision: 2, operation: 'update', message: 'Second draft' }),
    ]);
    const rest = (
      await api.get(`/page/${id}/history?hits=3&cursor=${list.cursor ?? ''}`)
    ).json<RevisionList>();
    expect(rest).toMatchObject({ count: 1, total: 4, cursor: null });
    expect(rest.data[0]).toMatchObject({
      revision: 1,
      operation: 'create',
      message: 'Created using API',
      title: 'Intro',
    });

    expect((await api.get(`/page/${id}/history?cursor=nonsense`)).statusCode).toBe(400);
    expect((await api.get(`/page/${id}/history?hits=101`)).statusCode).toBe(400);
    expect((await api.get(`/page/999999/history`)).statusCode).toBe(404);
  });

  it('reads one revision in any format and restores it into the draft as a new revision', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = (
      await api.post(`/documentation/${w.documentation.id}/page`, {
        title: 'Guide',
        content: '# Old **text**',
      })
    ).json<{ id: number }>().id;
    await api.put(`/page/${id}/publish`);
    await api.put(`/page/${id}`, { content: '# New text', title: 'Guide v2' });

    const old = await api.get(`/page/${id}/history/1?format=html`);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({
      id,
      title: 'Guide',
      slug: 'guide',
      contentDraft: '<h1 id="old-text">Old <strong>text</strong></h1>\n',
      contentPublished: null,
      path: 'v1/guides/guide',
    });
    expect((await api.get(`/page/${id}/history/2`)).json()).toMatchObject({
      contentDraft: null,
      contentPublished: '# Old **text**',
    });
    expect((await api.get(`/page/${id}/history/9`)).statusCode).toBe(404);

    const restored = await api.post(`/page/${id}/history/1/restore`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({
      title: 'Guide v2',
      contentDraft: '# Old **text**',
      contentPublished: '# Old **text**',
    });
    const latest = (await api.get(`/page/${id}/history?hits=1`)).json<RevisionList>();
    expect(latest).toMatchObject({ total: 4, data: [{ revision: 4, message: 'Restored revision 1' }] });
    expect((await api.get(`/page/${id}`)).json()).toMatchObject({ contentDraft: '# Old **text**' });

    const { key: reader } = await createKey(t.deps, w.project.id, { permissions: ['page.read'] });
    const refused = await client(t.app, reader).post(`/page/${id}/history/1/restore`);
    expect(refused.statusCode).toBe(403);
    expect(expectErrorShape(refused).message).toContain('page.edit');
    expect((await client(t.app, reader).get(`/page/${id}/history`)).statusCode).toBe(200);
  });
});
