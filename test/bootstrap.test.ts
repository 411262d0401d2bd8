import { describe, expect, it } from 'vitest';
import { bootstrapBanner, bootstrapIfEmpty } from '../src/bootstrap.ts';
import { buildTestApp, client, dialectName, useTestApp } from './helpers/test-app.ts';

const KEY = `qk_${'b'.repeat(43)}`;
const t = useTestApp({ env: { QUIRE_BOOTSTRAP: 'true', QUIRE_BOOTSTRAP_KEY: KEY } });

describe('first start', () => {
  it('creates the demo project, version, section and an all-permission key, once', async () => {
    const result = await bootstrapIfEmpty(t.deps);
    expect(result).toEqual({ projectId: expect.any(Number) as number, key: KEY });
    expect(await bootstrapIfEmpty(t.deps)).toBeNull();

    const api = client(t.app, KEY);
    const versions = (await api.get('/version')).json<
      Array<{
        id: number;
        name: string;
        published: boolean;
      }>
    >();
    expect(versions).toMatchObject([{ name: 'v1', slug: 'v1', published: true }]);
    const sections = (await api.get(`/version/${versions[0]!.id}/documentation`)).json();
    expect(sections).toMatchObject([{ title: 'Guides', slug: 'guides', published: true }]);
    const project = await t.deps.projects.get(result!.projectId);
    expect(project).toMatchObject({ plan: 'enterprise', access: 'invite' });

    const banner = bootstrapBanner(result!, 'http://localhost:8080');
    expect(banner).toContain(KEY);
    expect(banner).toContain(`curl -H 'X-Api-Key: ${KEY}' http://localhost:8080/api/v1/version`);
  });

  // Instances share a database on PostgreSQL; SQLite is one process's file (two connections of one
  // process would wait on each other's write lock here, as two processes never do).
  it.runIf(dialectName === 'postgres')(
    'makes one demo project when two instances start together',
    async () => {
      const second = await buildTestApp({ sharedWith: t, env: { QUIRE_BOOTSTRAP: 'true' } });
      try {
        const results = await Promise.all([bootstrapIfEmpty(t.deps), bootstrapIfEmpty(second.deps)]);
        expect(results.filter((r) => r !== null)).toHaveLength(1);
        expect(await t.deps.projects.count()).toBe(1);
        expect(await second.deps.projects.count()).toBe(1);
      } finally {
        await second.close();
      }
    },
  );

  it('does nothing when QUIRE_BOOTSTRAP=false', async () => {
    const off = await buildTestApp({ env: { QUIRE_BOOTSTRAP: 'false' } });
    try {
      expect(await bootstrapIfEmpty(off.deps)).toBeNull();
      expect(await off.deps.projects.count()).toBe(0);
    } finally {
      await off.close();
    }
  });
});
