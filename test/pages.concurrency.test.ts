import { describe, expect, it } from 'vitest';
import { auditEntries, createWorld, pageHistory } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/** Writes of one page sent at once: on PostgreSQL they run on connections of their own. */
describe('concurrent writes of one page', () => {
  it('publishes a draft once when several publishes arrive at once', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Once',
      content: 'v1',
    });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json<{ id: number }>().id;

    const results = await Promise.all(Array.from({ length: 6 }, () => api.put(`/page/${id}/publish`)));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const res of results) {
      expect(res.json()).toMatchObject({ contentDraft: null, contentPublished: 'v1', listed: true });
    }
    expect((await pageHistory(t.deps, id)).map((h) => h.operation)).toEqual(['create', 'publish']);
    const published = (await auditEntries(t.deps, w.project.id)).filter((e) =>
      e.message.endsWith('published'),
    );
    expect(published).toHaveLength(1);
  });

  it('lets one of several updates with the same If-Match through and answers the others 412', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Tag',
      content: 'v1',
    });
    const id = created.json<{ id: number }>().id;
    const tag = created.headers.etag;
    expect(typeof tag).toBe('string');

    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.put(`/page/${id}`, { content: `v${i + 2}` }, { headers: { 'if-match': String(tag) } }),
      ),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = results.find((r) => r.statusCode === 200)?.json<{ contentDraft: string }>();
    const page = await api.get(`/page/${id}`);
    expect(page.json()).toMatchObject({ contentDraft: winner?.contentDraft });
    expect((await pageHistory(t.deps, id)).map((h) => h.operation)).toEqual(['create', 'update']);
  });
});
