import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

/** GET /webhooks in the envelope of Quire's lists, a page at a time (decision 0035). */
const t = useTestApp({
  env: { WEBHOOK_SECRET_KEY: Buffer.alloc(32, 5).toString('base64') },
  overrides: { webhookResolver: () => Promise.resolve([{ address: '203.0.113.8', family: 4 }]) },
});

interface Listed {
  data: Array<{ id: number }>;
  cursor: string | null;
  count: number;
  total: number;
  items: Array<{ id: number }>;
}

describe('GET /webhooks', () => {
  it('pages oldest first with a cursor, counting each page and the whole', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.post('/webhooks', {
        url: `https://hooks.example.test/${i}`,
        events: ['page.created'],
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json<{ id: number }>().id);
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    const counts: number[] = [];
    do {
      const res = await api.get(`/webhooks?hits=2${cursor === null ? '' : `&cursor=${cursor}`}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<Listed>();
      expect(page.total).toBe(5);
      expect(page.count).toBe(page.data.length);
      expect(page.items).toEqual(page.data);
      counts.push(page.count);
      seen.push(...page.data.map((hook) => hook.id));
      cursor = page.cursor;
    } while (cursor !== null);
    expect(counts).toEqual([2, 2, 1]);
    expect(seen).toEqual(ids);
    // Without hits, up to 100 at once.
    expect((await api.get('/webhooks')).json<Listed>()).toMatchObject({ count: 5, cursor: null, total: 5 });
  });

  it('refuses a cursor it did not give, and hits out of range', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const before = Buffer.from('before:3').toString('base64url');
    for (const query of ['cursor=nope', `cursor=${before}`, 'hits=0', 'hits=101']) {
      const res = await api.get(`/webhooks?${query}`);
      expect(res.statusCode, query).toBe(400);
      expectErrorShape(res);
    }
  });
});
