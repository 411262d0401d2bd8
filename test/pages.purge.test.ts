import { describe, expect, it } from 'vitest';
import type { PurgeReport } from '../src/modules/pages/pages.trash.ts';
import { createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

// The jobs room purges what was deleted more than 30 days ago, with what names it without a
// foreign key (former slugs, search entries), and leaves everything younger as it was.
const t = useTestApp({ env: { RATE_LIMIT_SCALE: '100' } });
const DAY = 24 * 60 * 60 * 1000;

type Api = ReturnType<typeof client>;

async function renamedPage(api: Api, documentationId: number, title: string): Promise<number> {
  const created = await api.post(`/documentation/${documentationId}/page`, {
    title,
    content: `About ${title}.`,
  });
  expect(created.statusCode).toBe(200);
  const id = created.json<{ id: number }>().id;
  expect((await api.put(`/page/${id}`, { slug: `${title.toLowerCase()}-renamed` })).statusCode).toBe(200);
  expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
  return id;
}

/** Runs the jobs room's purge of deleted rows once, as a server's start does. */
async function runPurgeJob(): Promise<PurgeReport> {
  const job = t.deps.jobs.find((each) => each.name === 'purge deleted rows');
  expect(job).toBeDefined();
  return new Promise((resolve, reject) =>
    job!.start({
      info: (details) => resolve((details as { purged: PurgeReport }).purged),
      warn: (details) => reject(new Error(JSON.stringify(details))),
    }),
  );
}

const rowsNaming = async (pageId: number) => {
  const db = t.deps.database.db;
  const [history, slugs, entries] = await Promise.all([
    db.selectFrom('page_history').select('id').where('page_id', '=', pageId).execute(),
    db
      .selectFrom('former_slugs')
      .select('slug')
      .where('kind', '=', 'page')
      .where('target_id', '=', pageId)
      .execute(),
    db.selectFrom('search_entries').select('id').where('page_id', '=', pageId).execute(),
  ]);
  return { history: history.length, slugs: slugs.map((row) => row.slug), entries: entries.length };
};

describe('the purge of deleted rows in the jobs room', () => {
  it('removes pages deleted more than 30 days ago with their history and former slugs, and only those', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const old = await renamedPage(api, w.documentation.id, 'Walrus');
    const recent = await renamedPage(api, w.documentation.id, 'Narwhal');
    const live = await renamedPage(api, w.documentation.id, 'Beluga');
    expect(await rowsNaming(old)).toMatchObject({ history: 3, slugs: ['walrus'] });
    expect((await rowsNaming(live)).entries).toBeGreaterThan(0);

    expect((await api.delete(`/page/${old}`)).statusCode).toBe(200);
    expect((await rowsNaming(old)).entries).toBe(0);
    t.clock.advance(29 * DAY);
    expect((await api.delete(`/page/${recent}`)).statusCode).toBe(200);
    t.clock.advance(2 * DAY);
    // A search entry a failed clean-up would have left: the purge takes it too.
    const entry = await t.deps.database.db
      .selectFrom('search_entries')
      .select([
        'project_id',
        'version_id',
        'documentation_id',
        'reference_id',
        'changelog_post_id',
        'section_type',
        'version_slug',
        'section',
        'page',
        'fragment',
        'title',
        'content',
        'ordr',
      ])
      .where('page_id', '=', live)
      .limit(1)
      .executeTakeFirstOrThrow();
    await t.deps.database.db
      .insertInto('search_entries')
      .values({ ...entry, page_id: old })
      .execute();
    expect((await rowsNaming(old)).entries).toBe(1);

    expect(await runPurgeJob()).toMatchObject({ pages: 1, documentation: 0, versions: 0 });
    expect(await rowsNaming(old)).toEqual({ history: 0, slugs: [], entries: 0 });
    expect(await rowsNaming(recent)).toEqual({ history: 3, slugs: ['narwhal'], entries: 0 });
    expect((await rowsNaming(live)).slugs).toEqual(['beluga']);
    expect((await api.post(`/page/${old}/restore`)).statusCode).toBe(404);
    expect((await api.post(`/page/${recent}/restore`)).statusCode).toBe(200);
    expect((await api.get(`/page/${recent}/history/1`)).json()).toMatchObject({
      contentDraft: 'About Narwhal.',
    });
  });

  it('removes a version deleted long ago with the former slugs of its sections and pages', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const v2 = (await api.post('/version', { name: 'v2' })).json<{ id: number }>();
    const section = (await api.post(`/version/${v2.id}/documentation`, { title: 'Old' })).json<{
      id: number;
    }>();
    expect((await api.put(`/documentation/${section.id}`, { slug: 'older' })).statusCode).toBe(200);
    const inside = await renamedPage(api, section.id, 'Inside');
    const kept = await renamedPage(api, w.documentation.id, 'Kept');
    expect((await api.delete(`/version/${v2.id}`)).statusCode).toBe(200);
    t.clock.advance(30 * DAY + 1000);

    expect(await runPurgeJob()).toMatchObject({ versions: 1 });
    const slugs = await t.deps.database.db.selectFrom('former_slugs').select(['kind', 'target_id']).execute();
    expect(slugs).toEqual([{ kind: 'page', target_id: kept }]);
    expect(await rowsNaming(inside)).toEqual({ history: 0, slugs: [], entries: 0 });
  });
});
