import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

// Revisions are stored packed, most as the change from the one before (decision 0038); every one
// must read back through the history API exactly as it was written, wherever its chain starts.
const t = useTestApp({ env: { RATE_LIMIT_SCALE: '1000' } });

type Api = ReturnType<typeof client>;

interface Contents {
  contentDraft: string | null;
  contentPublished: string | null;
}

/** A small generator, so that a failure can be run again as it was. */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor((state / 2_147_483_648) * below);
  };
}

const WORDS = ['quire', 'page', 'naïve', 'über', '日本語', '😀', 'line', 'text', '∑', 'café', 'a', 'the'];
const line = (next: (below: number) => number) =>
  Array.from({ length: 3 + next(8) }, () => WORDS[next(WORDS.length)]).join(' ');

async function newPage(api: Api, documentationId: number, content: string): Promise<number> {
  const res = await api.post(`/documentation/${documentationId}/page`, { title: 'Packed', content });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: number }>().id;
}

/** Reads revisions (by default all) through the API and compares them with what was written. */
async function expectHistory(
  api: Api,
  id: number,
  written: Contents[],
  revisions = written.map((_, index) => index + 1),
): Promise<void> {
  for (const revision of revisions) {
    const want = written[revision - 1]!;
    const res = await api.get(`/page/${id}/history/${revision}`);
    expect(res.statusCode, res.body).toBe(200);
    const got = res.json<Contents>();
    expect({ revision, draft: got.contentDraft, published: got.contentPublished }).toEqual({
      revision,
      draft: want.contentDraft,
      published: want.contentPublished,
    });
  }
}

/** The packed values of a page's revisions: their kinds (1 whole, 2 a change) and total size. */
async function packed(id: number) {
  const rows = await t.deps.database.db
    .selectFrom('page_history')
    .select(['contents'])
    .where('page_id', '=', id)
    .orderBy('id')
    .execute();
  return {
    kinds: rows.map((row) => row.contents?.[0] ?? 0),
    bytes: rows.reduce((sum, row) => sum + (row.contents?.byteLength ?? 0), 0),
  };
}

describe(`page history stored packed`, () => {
  it('reads back every revision byte for byte across many chains, publishes and a restore', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const next = random(40);
    let lines = Array.from({ length: 12 }, () => line(next));
    const text = () => lines.join(next(2) === 0 ? '\r\n' : '\n');
    let draft: string | null = text();
    let published: string | null = null;
    const id = await newPage(api, w.documentation.id, draft);
    const written: Contents[] = [{ contentDraft: draft, contentPublished: published }];
    for (let edit = 1; edit <= 90; edit++) {
      if (edit % 25 === 0) {
        expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
        published = draft;
        draft = null;
      } else {
        lines[next(lines.length)] = line(next);
        if (edit % 17 === 0) lines = [...lines, ''];
        draft = edit === 40 ? '' : text();
        expect((await api.put(`/page/${id}`, { content: draft })).statusCode).toBe(200);
      }
      written.push({ contentDraft: draft, contentPublished: published });
    }
    const restored = await api.post(`/page/${id}/history/7/restore`);
    expect(restored.statusCode).toBe(200);
    written.push({ contentDraft: written[6]!.contentDraft, contentPublished: published });
    expect((await api.put(`/page/${id}`, { content: `${written[6]!.contentDraft}\r\n` })).statusCode).toBe(
      200,
    );
    written.push({ contentDraft: `${written[6]!.contentDraft}\r\n`, contentPublished: published });

    await expectHistory(api, id, written);
    // Several chains, each started by a whole revision, the rest changes.
    const { kinds } = await packed(id);
    expect(kinds[0]).toBe(1);
    expect(kinds.filter((kind) => kind === 1).length).toBeGreaterThan(2);
    expect(kinds.filter((kind) => kind === 2).length).toBeGreaterThan(written.length / 2);
  });

  it('stores a large page edited line by line in a few times its size', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const next = random(7);
    const lines = Array.from({ length: 500 }, () => line(next));
    const size = Buffer.byteLength(lines.join('\n'));
    expect(size).toBeGreaterThan(15_000);
    const id = await newPage(api, w.documentation.id, lines.join('\n'));
    const written: Contents[] = [{ contentDraft: lines.join('\n'), contentPublished: null }];
    for (let edit = 1; edit < 150; edit++) {
      lines[next(lines.length)] = line(next);
      expect((await api.put(`/page/${id}`, { content: lines.join('\n') })).statusCode).toBe(200);
      written.push({ contentDraft: lines.join('\n'), contentPublished: null });
    }
    // Stored whole each time, the history would weigh 150 pages.
    expect((await packed(id)).bytes).toBeLessThan(2 * size);
    await expectHistory(api, id, written, [1, 2, 60, 61, 62, 75, 110, 148, 149, 150]);
  });

  it('reads revisions an older build stored whole, and chains the next ones after them', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = await newPage(api, w.documentation.id, 'First\r\nversion é');
    expect((await api.put(`/page/${id}/publish`)).statusCode).toBe(200);
    // As a build before migration 0024 wrote them: the contents in their own columns.
    await t.deps.database.db
      .updateTable('page_history')
      .set({
        contents: null,
        content_draft: sql<string | null>`case when operation = 'create' then ${'First\r\nversion é'} end`,
        content_published: sql<
          string | null
        >`case when operation = 'publish' then ${'First\r\nversion é'} end`,
      })
      .where('page_id', '=', id)
      .execute();
    await api.put(`/page/${id}`, { content: 'First\r\nversion é, edited' });
    await api.put(`/page/${id}`, { content: 'First\r\nversion é, edited twice' });
    await expectHistory(api, id, [
      { contentDraft: 'First\r\nversion é', contentPublished: null },
      { contentDraft: null, contentPublished: 'First\r\nversion é' },
      { contentDraft: 'First\r\nversion é, edited', contentPublished: 'First\r\nversion é' },
      { contentDraft: 'First\r\nversion é, edited twice', contentPublished: 'First\r\nversion é' },
    ]);
    expect((await packed(id)).kinds).toEqual([0, 0, 1, 2]);
  });
});
