import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { createKey, createUser, createVersion, createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();
const NOBODY = { id: null, email: null, name: null };

interface ReportPage {
  id: number;
  title: string;
  hasDraft: boolean;
  listed: boolean;
  created: string;
  createdBy: { id: number | null; email: string | null; name: string | null };
  updated: string;
  updatedBy: { id: number | null; email: string | null; name: string | null };
  sourceCreated: string;
  sourceCreatedBy: { id: number | null; email: string | null; name: string | null };
}

async function report(key: string, versionId: number, query = '') {
  const res = await client(t.app, key).get(`/version/${versionId}/report${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<ReportPage[]>();
}

/** A project with two users holding keys, and a key with no user. */
async function team() {
  const w = await createWorld(t.deps);
  const ada = await createUser(t.deps, w.project.id, { name: 'Ada', email: 'Ada@Example.com' });
  const bob = await createUser(t.deps, w.project.id, { name: 'Bob', email: 'bob@example.com' });
  const adaKey = (await createKey(t.deps, w.project.id, { userId: ada.id })).key;
  const bobKey = (await createKey(t.deps, w.project.id, { userId: bob.id })).key;
  return { ...w, ada, bob, adaKey, bobKey };
}

describe('GET /version/{id}/report', () => {
  it('names the users whose keys created and last updated each page, nulls where there was none', async () => {
    const w = await team();
    const ada = client(t.app, w.adaKey);
    const bob = client(t.app, w.bobKey);
    const first = (
      await ada.post(`/documentation/${w.documentation.id}/page`, { title: 'First', content: 'a' })
    ).json<{ id: number }>();
    t.clock.advance(60_000);
    expect((await bob.put(`/page/${first.id}`, { content: 'b' })).statusCode).toBe(200);
    const second = (
      await client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
        title: 'Second',
        content: 'c',
      })
    ).json<{ id: number }>();
    expect((await client(t.app, w.key).put(`/page/${second.id}/publish`)).statusCode).toBe(200);
    let out = '';
    const code = await runCli(
      ['page', 'create', '--documentation', String(w.documentation.id), '--title', 'Third', '--content', 'd'],
      { stdout: (s) => (out += s), stderr: () => undefined },
      t.deps,
    );
    expect(code).toBe(0);
    const third = JSON.parse(out) as { id: number };
    const gone = (
      await ada.post(`/documentation/${w.documentation.id}/page`, { title: 'Gone', content: 'x' })
    ).json<{ id: number }>();
    expect((await ada.delete(`/page/${gone.id}`)).statusCode).toBe(200);

    const res = await client(t.app, w.key).get(`/version/${w.version.id}/report`);
    expect(res.headers['x-ratelimit-limit']).toBe('60');
    const pages = res.json<ReportPage[]>();
    const adaUser = { id: w.ada.id, email: 'ada@example.com', name: 'Ada' };
    const bobUser = { id: w.bob.id, email: 'bob@example.com', name: 'Bob' };
    expect(pages).toEqual([
      {
        id: first.id,
        title: 'First',
        hasDraft: true,
        listed: false,
        created: '2026-11-21T10:15:00+0000',
        createdBy: adaUser,
        updated: '2026-11-21T10:16:00+0000',
        updatedBy: bobUser,
        sourceCreated: '2026-11-21T10:15:00+0000',
        sourceCreatedBy: adaUser,
        helpful: 0,
        notHelpful: 0,
      },
      expect.objectContaining({
        id: second.id,
        hasDraft: false,
        listed: true,
        createdBy: NOBODY,
        updatedBy: NOBODY,
      }),
      expect.objectContaining({ id: third.id, title: 'Third', createdBy: NOBODY, sourceCreatedBy: NOBODY }),
    ]);
    // A user's key reassigned later leaves the recorded user as it was.
    await t.deps.database.db
      .updateTable('api_keys')
      .set({ user_id: null })
      .where('user_id', '=', w.ada.id)
      .execute();
    expect((await report(w.key, w.version.id))[0]?.createdBy).toEqual(adaUser);
  });

  it('filters on created_by_email, case-insensitively', async () => {
    const w = await team();
    const ada = client(t.app, w.adaKey);
    const bob = client(t.app, w.bobKey);
    const mine = (
      await ada.post(`/documentation/${w.documentation.id}/page`, { title: 'Mine', content: 'a' })
    ).json<{
      id: number;
    }>();
    await bob.post(`/documentation/${w.documentation.id}/page`, { title: 'Theirs', content: 'b' });
    expect((await report(w.key, w.version.id, '?created_by_email=ada@EXAMPLE.com')).map((p) => p.id)).toEqual(
      [mine.id],
    );
    expect(await report(w.key, w.version.id, '?created_by_email=nobody@example.com')).toEqual([]);
  });

  it('follows clones back to the first page for sourceCreated and sourceCreatedBy', async () => {
    const w = await team();
    const ada = client(t.app, w.adaKey);
    const bob = client(t.app, w.bobKey);
    const original = (
      await ada.post(`/documentation/${w.documentation.id}/page`, { title: 'Original', content: 'a' })
    ).json<{ id: number }>();
    t.clock.advance(3_600_000);
    const clone = (await bob.post(`/version/${w.version.id}/clone`, { name: 'Two' })).json<{ id: number }>();
    t.clock.advance(3_600_000);
    const again = (await client(t.app, w.key).post(`/version/${clone.id}/clone`, { name: 'Three' })).json<{
      id: number;
    }>();

    const [second] = await report(w.key, clone.id);
    expect(second).toMatchObject({
      title: 'Original',
      created: '2026-11-21T11:15:00+0000',
      createdBy: { id: w.bob.id },
      sourceCreated: '2026-11-21T10:15:00+0000',
      sourceCreatedBy: { id: w.ada.id, email: 'ada@example.com' },
    });
    expect(second!.id).not.toBe(original.id);
    const [third] = await report(w.key, again.id);
    expect(third).toMatchObject({
      created: '2026-11-21T12:15:00+0000',
      createdBy: NOBODY,
      sourceCreated: '2026-11-21T10:15:00+0000',
      sourceCreatedBy: { id: w.ada.id },
    });
    // The original deleted (not purged): the clones still know where they came from.
    expect((await ada.delete(`/page/${original.id}`)).statusCode).toBe(200);
    expect((await report(w.key, again.id))[0]).toMatchObject({ sourceCreatedBy: { id: w.ada.id } });
  });

  it('needs project.read, honours the version scope and keeps other projects out', async () => {
    const w = await team();
    const writer = await createKey(t.deps, w.project.id, { permissions: ['page.edit'] });
    expect((await client(t.app, writer.key).get(`/version/${w.version.id}/report`)).statusCode).toBe(403);
    const other = await createVersion(t.deps, w.project.id, { name: 'Other' });
    const scoped = await createKey(t.deps, w.project.id, { versions: [other.id] });
    expect((await client(t.app, scoped.key).get(`/version/${w.version.id}/report`)).statusCode).toBe(403);
    const stranger = await createWorld(t.deps);
    expect((await client(t.app, stranger.key).get(`/version/${w.version.id}/report`)).statusCode).toBe(404);
  });
});
