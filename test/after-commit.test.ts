import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeType } from '../src/modules/changes/change-events.ts';
import { auditEntries, createKey, createProject, createWorld } from './helpers/factories.ts';
import { multipart } from './helpers/references.ts';
import { buildTestApp, client, type TestApp } from './helpers/test-app.ts';
import { buildZip } from './helpers/zip.ts';

// Work a change leaves for after its transaction (renders ahead, link scans, the webhook nudge,
// keys forgotten) runs once that transaction has committed, whoever owns it: the use case, a group
// of creates, an Idempotency-Key's run. A transaction rolled back leaves none of it done.
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.reverse()) await app.close();
  apps.length = 0;
});

/** What an after-commit subscriber saw: each change, and whether the read connection then found its page. */
interface Seen {
  type: ChangeType;
  pageId: number | null;
  /** the page read on the read connection as the subscriber ran: committed, or not there */
  found: Promise<boolean>;
}

async function instance(): Promise<{ a: TestApp; seen: Seen[] }> {
  const a = await buildTestApp({ env: { RATE_LIMIT_SCALE: '100', RENDER_AHEAD: 'true' } });
  apps.push(a);
  const seen: Seen[] = [];
  const reader = a.deps.database.reader;
  a.deps.changes.subscribeCommitted(({ event }) => {
    const pageId = event.type === 'page.created' ? event.page.id : null;
    const found =
      pageId === null
        ? Promise.resolve(false)
        : reader
            .selectFrom('pages')
            .select('id')
            .where('id', '=', pageId)
            .executeTakeFirst()
            .then((row) => row !== undefined);
    seen.push({ type: event.type, pageId, found });
  });
  return { a, seen };
}

const page = (body: string) => `---\ntitle: A\n---published\n\n${body}\n`;

async function importZip(a: TestApp, key: string, zip: Buffer, headers: Record<string, string> = {}) {
  const body = await multipart([
    { name: 'file', content: zip, filename: 'export.zip', type: 'application/zip' },
  ]);
  return client(a.app, key).post('/import?strict=true', undefined, {
    ...body,
    headers: { ...body.headers, ...headers },
  });
}

describe('the after-commit phase', () => {
  it('runs once the change has committed: alone, in a group of creates, under an Idempotency-Key', async () => {
    const { a, seen } = await instance();
    const w = await createWorld(a.deps);
    seen.length = 0;
    const api = client(a.app, w.key);
    const url = `/documentation/${w.documentation.id}/page`;

    const alone = await api.post(url, { title: 'Alone', content: 'a', slug: 'alone' });
    const keyed = await api.post(
      url,
      { title: 'Keyed', content: 'k' },
      { headers: { 'idempotency-key': 'after-commit-keyed' } },
    );
    // Arriving together, these run as one transaction where groups form; the one whose slug is
    // taken fails, the group is undone and run again without it.
    const together = await Promise.all([
      api.post(url, { title: 'One', content: '1' }),
      api.post(url, { title: 'Taken', content: 't', slug: 'alone' }),
      api.post(url, { title: 'Two', content: '2' }),
      api.post(url, { title: 'Three', content: '3' }),
    ]);
    const answers = [alone, keyed, ...together];
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200, 409, 200, 200]);

    const created = answers
      .filter((res) => res.statusCode === 200)
      .map((res) => res.json<{ id: number }>().id);
    const pages = seen.filter((s) => s.type === 'page.created');
    expect(pages.map((s) => s.pageId).sort()).toEqual([...created].sort());
    // Each subscriber ran after its commit: the read connection already saw the page.
    expect(await Promise.all(pages.map((s) => s.found))).toEqual(created.map(() => true));
    expect(a.deps.pages.ahead.stats().queued).toBe(created.length);
  });

  it('does none of the work of a transaction rolled back after it recorded changes', async () => {
    const { a, seen } = await instance();
    const project = await createProject(a.deps, { plan: 'enterprise' });
    const { key } = await createKey(a.deps, project.id);
    const audited = (await auditEntries(a.deps, project.id)).length;
    seen.length = 0;
    // The pages are written and their changes recorded; the definition after them fails the import.
    const failing = buildZip([
      { name: 'v/S/1 A.md', data: page('First') },
      { name: 'v/S/2 B.md', data: page('Second') },
      { name: 'v/refs/bad.json', data: '{"openapi": "3.0.3", "info": {"title": "Bad"}}' },
    ]);
    expect((await importZip(a, key, failing)).statusCode).toBe(400);
    // Under a key, the use case's rollback and then the key's transaction's.
    const keyed = await importZip(a, key, failing, { 'idempotency-key': 'after-commit-import' });
    expect(keyed.statusCode).toBe(400);

    expect(seen).toEqual([]);
    expect(a.deps.pages.ahead.stats()).toEqual({ queued: 0, prepared: 0, failures: 0 });
    expect(await auditEntries(a.deps, project.id)).toHaveLength(audited);

    // The same archive without the bad definition commits, and its work follows (each page created,
    // then published: queued twice, rendered once).
    const whole = buildZip([
      { name: 'v/S/1 A.md', data: page('First') },
      { name: 'v/S/2 B.md', data: page('Second') },
    ]);
    expect((await importZip(a, key, whole, { 'idempotency-key': 'after-commit-whole' })).statusCode).toBe(
      201,
    );
    expect(seen.map((s) => s.type)).toContain('import.completed');
    expect(a.deps.pages.ahead.stats().queued).toBe(4);
    await a.deps.pages.ahead.idle();
    expect(a.deps.pages.ahead.stats()).toMatchObject({ prepared: 2, failures: 0 });
  });
});
