import { describe, expect, it } from 'vitest';
import { createKey, createWorld } from './helpers/factories.ts';
import { emptyProject, exportFiles, importZip, type ImportReport } from './helpers/import-client.ts';
import { client, useTestApp } from './helpers/test-app.ts';
import { buildZip, zipTexts } from './helpers/zip.ts';
import { listFeedback, sendFeedback } from './site/feedback-helpers.ts';
import { sitePage } from './site/site-helpers.ts';

const t = useTestApp({ env: { RATE_LIMIT_SCALE: '100' } });

const toZip = (files: Record<string, string>) =>
  buildZip(Object.entries(files).map(([name, data]) => ({ name, data })));

/** An enterprise, public project whose pages `start` and `other` have readers' feedback. */
async function projectWithFeedback() {
  const w = await createWorld(t.deps, { access: 'public' });
  const start = await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
  await sitePage(t.app, w.key, w.documentation.id, { title: 'Other', slug: 'other' });
  const root = `/sites/${w.project.id}`;
  for (const [page, helpful, message] of [
    ['start', 'yes', 'Clear "and" short'],
    ['other', 'no', ''],
    ['start', 'no', 'Line one\nline two'],
  ] as const) {
    const res = await sendFeedback(t.app, root, { page: `/v1/guides/${page}`, helpful, message });
    expect(res.statusCode, res.body).toBe(303);
    t.clock.advance(61_000);
  }
  return { ...w, start };
}

describe('feedback in the export and the import', () => {
  it('writes feedback.json per version and reads it back: export → import → export is the same', async () => {
    const w = await projectWithFeedback();
    const files = await exportFiles(t.app, w.key);
    const feedback = JSON.parse(files['v1/feedback.json'] ?? 'null') as unknown;
    expect(feedback).toEqual({
      feedback: [
        {
          section: 'guides',
          page: 'start',
          helpful: true,
          message: 'Clear "and" short',
          created: '2026-11-21T10:15:00+0000',
        },
        {
          section: 'guides',
          page: 'other',
          helpful: false,
          message: null,
          created: '2026-11-21T10:16:01+0000',
        },
        {
          section: 'guides',
          page: 'start',
          helpful: false,
          message: 'Line one\nline two',
          created: '2026-11-21T10:17:02+0000',
        },
      ],
    });

    const target = await emptyProject(t.deps);
    const imported = await importZip(t.app, target.key, toZip(files));
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json<ImportReport>().warnings).toEqual([]);
    const again = await exportFiles(t.app, target.key);
    expect(again).toEqual(files);
    // The imported feedback is the target's own: listed by its API, newest first.
    const listed = (await listFeedback(t.app, target.key)).json<{
      data: Array<{ message: string | null }>;
    }>();
    expect(listed.data.map((f) => f.message)).toEqual(['Line one\nline two', null, 'Clear "and" short']);
  });

  it('leaves feedback out for a key without feedback.read, and skips what does not fit with warnings', async () => {
    const w = await projectWithFeedback();
    const { key } = await createKey(t.deps, w.project.id, { permissions: ['project.export'] });
    const res = await client(t.app, key).get('/export');
    expect(res.statusCode).toBe(200);
    expect(Object.keys(await zipTexts(res.rawPayload))).not.toContain('v1/feedback.json');

    const files = await exportFiles(t.app, w.key);
    const entries = (JSON.parse(files['v1/feedback.json'] ?? '{}') as { feedback: unknown[] }).feedback;
    files['v1/feedback.json'] = JSON.stringify({
      feedback: [
        ...entries,
        {
          section: 'guides',
          page: 'nosuch',
          helpful: true,
          message: null,
          created: '2026-11-21T10:15:00+0000',
        },
        {
          section: 'guides',
          page: 'start',
          helpful: 'yes',
          message: null,
          created: '2026-11-21T10:15:00+0000',
        },
        {
          section: 'guides',
          page: 'start',
          helpful: true,
          message: 'x'.repeat(2001),
          created: '2026-11-21T10:15:00+0000',
        },
        { section: 'guides', page: 'start', helpful: true, message: null, created: 'yesterday' },
      ],
    });
    const target = await emptyProject(t.deps);
    const imported = await importZip(t.app, target.key, toZip(files));
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json<ImportReport>().warnings).toEqual([
      { file: 'v1/feedback.json', message: 'Entry 5 is not valid feedback: it was skipped.' },
      { file: 'v1/feedback.json', message: 'Entry 6 is not valid feedback: it was skipped.' },
      { file: 'v1/feedback.json', message: 'Entry 7 is not valid feedback: it was skipped.' },
      {
        file: 'v1/feedback.json',
        message: "No page 'guides/nosuch' in the version: its feedback was skipped.",
      },
    ]);
    expect((await listFeedback(t.app, target.key)).json<{ total: number }>().total).toBe(3);

    files['v1/feedback.json'] = 'not json';
    const other = await emptyProject(t.deps);
    const refused = await importZip(t.app, other.key, toZip(files));
    expect(refused.statusCode).toBe(201);
    expect(refused.json<ImportReport>().warnings).toEqual([
      { file: 'v1/feedback.json', message: 'Not the feedback an export writes: it was ignored.' },
    ]);
  });

  it('keeps a section titled feedback.json apart from the file', async () => {
    const w = await projectWithFeedback();
    const res = await client(t.app, w.key).post(`/version/${w.version.id}/documentation`, {
      title: 'feedback.json',
      published: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const files = await exportFiles(t.app, w.key);
    expect(files['v1/feedback.json']).toContain('"feedback"');
    expect(Object.keys(files).some((name) => name.startsWith('v1/feedback.json '))).toBe(true);
  });
});
