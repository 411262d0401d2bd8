import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../src/deps.ts';
import { createWorld } from './helpers/factories.ts';
import { buildTestApp, client, dialectName, useTestApp } from './helpers/test-app.ts';

/** PostgreSQL refuses webhooks without a configured key; SQLite tests use the key file. */
const KEY_ENV: Record<string, string> =
  dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {};
const ENV = { ...KEY_ENV, WEBHOOK_ALLOW_PRIVATE: 'true' };
const overrides = {
  webhookResolver: () => Promise.resolve([{ address: '203.0.113.7', family: 4 as const }]),
};
const t = useTestApp({ env: ENV, overrides });

/** The outbox rows of each webhook, by id. */
async function deliveriesOf(deps: Deps, ids: readonly number[]): Promise<number[]> {
  const counts: number[] = [];
  for (const id of ids) {
    const rows = await deps.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('webhook_id', '=', id)
      .execute();
    counts.push(rows.length);
  }
  return counts;
}

describe('the outbox follows the live webhooks', () => {
  it('sends a page change to the webhooks created and not to those deleted, on this instance or another', async () => {
    const w = await createWorld(t.deps);
    const other = await buildTestApp({ sharedWith: t, env: ENV, overrides });
    try {
      const here = client(t.app, w.key);
      const there = client(other.app, w.key);
      let n = 0;
      const createPage = async () => {
        const res = await here.post(`/documentation/${w.documentation.id}/page`, {
          title: `Page ${++n}`,
          content: 'x',
        });
        expect(res.statusCode, res.body).toBe(200);
      };
      const createHook = async (api: typeof here) => {
        const res = await api.post('/webhooks', {
          url: 'https://hooks.example.test/quire',
          events: ['page.created'],
        });
        expect(res.statusCode, res.body).toBe(201);
        return res.json<{ id: number }>().id;
      };

      // No webhooks yet: nothing is queued, and this instance has looked.
      await createPage();
      const fromThere = await createHook(there);
      await createPage();
      expect(await deliveriesOf(t.deps, [fromThere])).toEqual([1]);

      const fromHere = await createHook(here);
      await createPage();
      expect(await deliveriesOf(t.deps, [fromThere, fromHere])).toEqual([2, 1]);

      expect((await there.delete(`/webhooks/${fromHere}`)).statusCode).toBe(200);
      await createPage();
      expect(await deliveriesOf(t.deps, [fromThere, fromHere])).toEqual([3, 1]);

      expect((await here.delete(`/webhooks/${fromThere}`)).statusCode).toBe(200);
      await createPage();
      expect(await deliveriesOf(t.deps, [fromThere, fromHere])).toEqual([3, 1]);

      // The other instance, which wrote no page yet, sees the same.
      const last = await createHook(here);
      const res = await there.post(`/documentation/${w.documentation.id}/page`, {
        title: 'There',
        content: 'x',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(await deliveriesOf(t.deps, [fromThere, fromHere, last])).toEqual([3, 1, 1]);
    } finally {
      await other.close();
    }
  });
});
