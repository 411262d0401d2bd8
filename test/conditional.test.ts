import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createWorld } from './helpers/factories.ts';
import { openapiJson, readDefinition, upload } from './helpers/references.ts';
import { client, expectErrorShape, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

const etagOf = (res: { headers: Record<string, unknown> }): string => {
  const tag = res.headers.etag;
  if (typeof tag !== 'string') throw new Error('no ETag header');
  return tag;
};

describe('If-None-Match', () => {
  it('answers 304 without a body for a current page tag, still counted, and a new tag after a change', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const id = (
      await api.post(`/documentation/${w.documentation.id}/page`, { title: 'A', content: '# A' })
    ).json<{
      id: number;
    }>().id;
    const first = await api.get(`/page/${id}`);
    const tag = etagOf(first);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const again = await api.get(`/page/${id}`, { headers: { 'if-none-match': tag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // No body headers that would make a client wait for bytes that never come.
    expect(again.headers['content-length'] ?? '0').toBe('0');
    expect(again.headers['content-type']).toBeUndefined();
    expect(etagOf(again)).toBe(tag);
    // Counted all the same (the header holds the count used in the window, as the specification has it).
    expect(Number(again.headers['x-ratelimit-remaining'])).toBe(
      Number(first.headers['x-ratelimit-remaining']) + 1,
    );
    // Lists and weak forms match too (If-None-Match compares weakly).
    expect((await api.get(`/page/${id}`, { headers: { 'if-none-match': `"x", W/${tag}` } })).statusCode).toBe(
      304,
    );

    const html = await api.get(`/page/${id}?format=html`);
    expect(etagOf(html)).not.toBe(tag);
    expect((await api.get(`/page/${id}?format=html`, { headers: { 'if-none-match': tag } })).statusCode).toBe(
      200,
    );

    await api.put(`/page/${id}`, { content: '# B' });
    const changed = await api.get(`/page/${id}`, { headers: { 'if-none-match': tag } });
    expect(changed.statusCode).toBe(200);
    expect(etagOf(changed)).not.toBe(tag);
  });

  it('tags a page as every release before this one did: tags clients hold stay current across upgrades', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Ünïcode «title»',
      content: '# Café\n\nText with é and 𝄞.',
    });
    expect(created.statusCode).toBe(200);
    const page = created.json<Record<string, unknown>>();
    // The tag's definition: SHA-256 over each part framed by its kind and UTF-8 length, the first 32
    // base64url characters. Computed here part by part, independently of the server's code.
    const hash = createHash('sha256');
    for (const part of [
      'id',
      'title',
      'slug',
      'listed',
      'contentDraft',
      'contentPublished',
      'path',
      'created',
      'updated',
    ].map((field) => page[field])) {
      const text = typeof part === 'string';
      const bytes = Buffer.from(text ? part : JSON.stringify(part), 'utf8');
      hash.update(`${text ? 'text' : 'value'}:${bytes.length}:`);
      hash.update(bytes);
    }
    const expected = `"${hash.digest('base64url').slice(0, 32)}"`;
    expect(etagOf(created)).toBe(expected);
    expect(etagOf(await api.get(`/page/${String(page.id)}`))).toBe(expected);
    // If-Match with it is accepted, and a write without a condition needs no tag at all.
    const updated = await api.put(
      `/page/${String(page.id)}`,
      { title: 'Next' },
      { headers: { 'if-match': expected } },
    );
    expect(updated.statusCode).toBe(200);
    expect((await api.put(`/page/${String(page.id)}`, { title: 'Last' })).statusCode).toBe(200);
  });

  it('gives a rendered page a new tag when only what it links to changed', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const linked = (
      await api.post(`/documentation/${w.documentation.id}/page`, {
        title: 'Setup',
        slug: 'setup',
        content: 'x',
      })
    ).json<{ id: number }>().id;
    const id = (
      await api.post(`/documentation/${w.documentation.id}/page`, {
        title: 'A',
        content: 'See [auto$](/guides/setup).',
      })
    ).json<{ id: number }>().id;
    const html = etagOf(await api.get(`/page/${id}?format=html`));
    const darkdown = etagOf(await api.get(`/page/${id}`));
    await api.put(`/page/${linked}`, { title: 'Installation', slug: 'setup' });
    const after = await api.get(`/page/${id}?format=html`, { headers: { 'if-none-match': html } });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ contentDraft: expect.stringContaining('Installation') as string });
    // The stored page did not change: its darkdown answer keeps its tag.
    expect((await api.get(`/page/${id}`, { headers: { 'if-none-match': darkdown } })).statusCode).toBe(304);
  });

  it('tags reference definitions per format, and /all', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const ref = (
      await upload(t.app, w.key, w.version.id, openapiJson('Pets'), { as: 'application/json' })
    ).json<{
      id: number;
    }>().id;
    const json = await readDefinition(t.app, w.key, ref);
    const yaml = await readDefinition(t.app, w.key, ref, { format: 'yaml' });
    expect(etagOf(json)).not.toBe(etagOf(yaml));
    const unchanged = await api.get(`/reference/${ref}/definition`, {
      headers: { 'if-none-match': etagOf(json) },
    });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    await upload(t.app, w.key, w.version.id, openapiJson('Pets', { 'x-note': 'new' }), {
      as: 'application/json',
    });
    expect(
      (await api.get(`/reference/${ref}/definition`, { headers: { 'if-none-match': etagOf(json) } }))
        .statusCode,
    ).toBe(200);

    const all = await api.get('/all');
    expect((await api.get('/all', { headers: { 'if-none-match': etagOf(all) } })).statusCode).toBe(304);
    await api.post(`/documentation/${w.documentation.id}/page`, { title: 'New', content: 'x' });
    expect((await api.get('/all', { headers: { 'if-none-match': etagOf(all) } })).statusCode).toBe(200);
  });
});

describe('If-Match', () => {
  it('writes a page only with its current tag, read in any format; a stale one is 412 with the current tag', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'A',
      content: 'one',
    });
    const id = created.json<{ id: number }>().id;
    const stale = etagOf(created);
    expect(stale).toBe(etagOf(await api.get(`/page/${id}`)));
    const htmlTag = etagOf(await api.get(`/page/${id}?format=html`));

    // Another pipeline writes first, with the tag it read as HTML.
    const theirs = await api.put(`/page/${id}`, { content: 'theirs' }, { headers: { 'if-match': htmlTag } });
    expect(theirs.statusCode).toBe(200);
    const current = etagOf(theirs);

    const mine = await api.put(`/page/${id}`, { content: 'mine' }, { headers: { 'if-match': stale } });
    expect(mine.statusCode).toBe(412);
    expectErrorShape(mine);
    expect(etagOf(mine)).toBe(current);
    expect((await api.get(`/page/${id}`)).json()).toMatchObject({ contentDraft: 'theirs' });
    expect(
      (await api.put(`/page/${id}/publish`, undefined, { headers: { 'if-match': stale } })).statusCode,
    ).toBe(412);
    // Weak tags never match a write.
    expect(
      (await api.put(`/page/${id}`, { content: 'x' }, { headers: { 'if-match': `W/${current}` } }))
        .statusCode,
    ).toBe(412);
    const published = await api.put(`/page/${id}/publish`, undefined, { headers: { 'if-match': current } });
    expect(published.statusCode).toBe(200);
    expect(published.json()).toMatchObject({ contentPublished: 'theirs' });
  });

  it('guards version and section writes and deletes the same way', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const version = await api.post('/version', { name: 'v2' });
    const vTag = etagOf(version);
    const vId = version.json<{ id: number }>().id;
    const renamed = await api.put(`/version/${vId}`, { name: 'v2.0' }, { headers: { 'if-match': vTag } });
    expect(renamed.statusCode).toBe(200);
    expect(
      (await api.put(`/version/${vId}`, { name: 'lost' }, { headers: { 'if-match': vTag } })).statusCode,
    ).toBe(412);
    const refused = await api.delete(`/version/${vId}`, { headers: { 'if-match': vTag } });
    expect(refused.statusCode).toBe(412);
    expect(etagOf(refused)).toBe(etagOf(renamed));
    expect((await api.get('/version')).json<Array<{ name: string }>>().map((v) => v.name)).toEqual([
      'v1',
      'v2.0',
    ]);
    expect(
      (await api.delete(`/version/${vId}`, { headers: { 'if-match': etagOf(renamed) } })).statusCode,
    ).toBe(200);

    const section = await api.post(`/version/${w.version.id}/documentation`, { title: 'S' });
    const sTag = etagOf(section);
    const sId = section.json<{ id: number }>().id;
    expect((await api.put(`/documentation/${sId}`, { title: 'S2' })).statusCode).toBe(200);
    expect(
      (await api.put(`/documentation/${sId}`, { title: 'S3' }, { headers: { 'if-match': sTag } })).statusCode,
    ).toBe(412);
    expect((await api.delete(`/documentation/${sId}`, { headers: { 'if-match': sTag } })).statusCode).toBe(
      412,
    );
    expect((await api.delete(`/documentation/${sId}`, { headers: { 'if-match': '*' } })).statusCode).toBe(
      200,
    );
  });
});
