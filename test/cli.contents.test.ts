import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { auditEntries, createCategory, createWorld } from './helpers/factories.ts';
import { openapiYaml, readDefinition } from './helpers/references.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

async function quire(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, t.deps);
  return { code, stdout, stderr, json: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : null };
}

function tempFile(name: string, content: string | Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

describe('bin/quire content commands', () => {
  it('creates, updates and publishes a page through the same service as the API', async () => {
    const w = await createWorld(t.deps);
    await createCategory(t.deps, w.documentation.id, 'Basics');
    const file = tempFile('intro.md', '# Intro\n\nWelcome.\n');
    const created = await quire(
      'page',
      'create',
      '--documentation',
      String(w.documentation.id),
      '--title',
      'Getting started',
      '--file',
      file,
      '--category',
      'basics',
      '--message',
      'Imported from the handbook',
    );
    expect(created.code).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    expect(created.json).toMatchObject({
      title: 'Getting started',
      slug: 'getting-started',
      listed: false,
      contentDraft: '# Intro\n\nWelcome.\n',
      contentPublished: null,
      path: 'v1/guides/getting-started',
    });
    const id = String(created.json!.id);

    const updated = await quire('page', 'update', id, '--content', 'Welcome, again.', '--slug', 'start');
    expect(updated.json).toMatchObject({ slug: 'start', contentDraft: 'Welcome, again.' });
    const published = await quire('page', 'publish', id);
    expect(published.json).toMatchObject({
      listed: true,
      contentDraft: null,
      contentPublished: 'Welcome, again.',
    });

    const read = await client(t.app, w.key).get(`/page/${id}?format=html`);
    expect(read.json()).toMatchObject({
      path: 'v1/guides/start',
      contentPublished: '<p>Welcome, again.</p>\n',
    });
    const entries = (await auditEntries(t.deps, w.project.id)).slice(0, 3);
    expect(entries.map((e) => e.message)).toEqual([
      "Page 'Getting started' published",
      "Page 'Getting started' updated",
      "Page 'Getting started' created",
    ]);
    expect(entries.every((e) => e.api_key_label === null && JSON.parse(e.details).source === 'cli')).toBe(
      true,
    );
    expect(JSON.parse(entries[2]!.details)).toMatchObject({ historyMessage: 'Imported from the handbook' });
  });

  it('uploads a reference, published by default or as a draft', async () => {
    const w = await createWorld(t.deps);
    const file = tempFile('pets.yaml', openapiYaml('Pets'));
    const uploaded = await quire('reference', 'upload', '--version', String(w.version.id), file);
    expect(uploaded.code).toBe(0);
    expect(uploaded.json).toMatchObject({ title: 'Pets', slug: 'pets' });
    const id = uploaded.json!.id as number;
    const published = await readDefinition(t.app, w.key, id);
    expect(published.statusCode).toBe(200);
    expect(published.body).toBe(openapiYaml('Pets'));

    const draft = await quire('reference', 'upload', '--version', String(w.version.id), file, '--draft');
    expect(draft.json).toMatchObject({ id });
    expect((await readDefinition(t.app, w.key, id, { draft: true })).statusCode).toBe(200);
  });

  it('creates changelogs with slugs unique in the project', async () => {
    const w = await createWorld(t.deps);
    const first = await quire(
      'changelog',
      'create',
      '--project',
      String(w.project.id),
      '--title',
      'Release notes',
    );
    expect(first.json).toMatchObject({
      projectId: w.project.id,
      title: 'Release notes',
      slug: 'release-notes',
    });
    const second = await quire(
      'changelog',
      'create',
      '--project',
      String(w.project.id),
      '--title',
      'Release notes',
    );
    expect(second.json).toMatchObject({ slug: 'release-notes-2' });
    const taken = await quire(
      'changelog',
      'create',
      '--project',
      String(w.project.id),
      '--title',
      'Other',
      '--slug',
      'release-notes',
    );
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/slug 'release-notes' is already used/);
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({
      entity: 'changelog',
      operation: 'INS',
      message: "Changelog 'Release notes' created",
    });
  });

  it('reports bad input on one line and a non-zero exit, writing nothing', async () => {
    const w = await createWorld(t.deps);
    const doc = String(w.documentation.id);
    const cases: Array<[string[], RegExp, number]> = [
      [['page', 'create', '--documentation', doc, '--title', 'X'], /--content or --file is required/, 2],
      [
        ['page', 'create', '--documentation', doc, '--title', 'X', '--content', 'a', '--file', 'b'],
        /not both/,
        2,
      ],
      [
        ['page', 'create', '--documentation', doc, '--title', 'X', '--file', '/nonexistent/x.md'],
        /cannot read/,
        2,
      ],
      [
        ['page', 'create', '--documentation', '999999', '--title', 'X', '--content', 'a'],
        /Documentation 999999 not found/,
        1,
      ],
      [['page', 'update', '999999', '--title', 'X'], /Page 999999 not found/, 1],
      [['page', 'update', '1'], /nothing to update/, 2],
      [['page', 'publish'], /missing required argument 'ID'/, 2],
      [
        ['reference', 'upload', '--version', String(w.version.id), tempFile('bad.json', '{"openapi": 3}')],
        /.+/,
        1,
      ],
      [
        [
          'page',
          'create',
          '--documentation',
          doc,
          '--title',
          'X',
          '--file',
          tempFile('latin.md', Buffer.from([0xe9])),
        ],
        /not UTF-8/,
        2,
      ],
    ];
    for (const [argv, message, code] of cases) {
      const result = await quire(...argv);
      expect(result.code, argv.join(' ')).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const all = await client(t.app, w.key).get('/all');
    expect(all.json().page).toEqual({});
    expect(all.json().reference).toEqual({});
  });
});
