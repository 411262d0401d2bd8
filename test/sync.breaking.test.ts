import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVersion, createWorld } from './helpers/factories.ts';
import { runQuireSync, useListeningApp } from './helpers/listening-app.ts';
import { client } from './helpers/test-app.ts';

/** `quire sync` and the API change report (extensions §8): what it prints, and --fail-on-breaking. */
const t = useListeningApp();

interface Breaking {
  file: string;
  kind: string;
  path: string;
  message: string;
}
interface Summary {
  ok: boolean;
  pages: { created: number; published: number };
  references: { uploaded: number; published: number; unchanged: number };
  breaking: Breaking[];
}

/** A definition of the pets API: with `withDelete`, a DELETE operation it later loses. */
const pets = (version: string, withDelete: boolean, extra = '') =>
  [
    'openapi: 3.0.3',
    'info:',
    '  title: Pets',
    `  version: "${version}"`,
    'paths:',
    '  /pets/{id}:',
    '    get:',
    '      parameters:',
    '        - { name: id, in: path, required: true, schema: { type: string } }',
    '      responses:',
    "        '200': { description: A pet }",
    ...(withDelete
      ? [
          '    delete:',
          '      parameters:',
          '        - { name: id, in: path, required: true, schema: { type: string } }',
          '      responses:',
          "        '204': { description: Gone }",
        ]
      : []),
    extra,
  ].join('\n');

async function world() {
  const { project, key } = await createWorld(t.deps);
  const version = await createVersion(t.deps, project.id, { name: 'Docs', slug: 'docs', published: true });
  const dir = t.tempDir('quire-sync-breaking-');
  fs.mkdirSync(path.join(dir, 'Guides'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'refs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'Guides/1 Intro.md'), '# Introduction\n\nWelcome.\n');
  fs.writeFileSync(path.join(dir, 'refs/pets.yaml'), pets('1', true));
  return { project, key, version, dir };
}

async function sync(dir: string, key: string, ...flags: string[]) {
  const { code, stdout, stderr } = await runQuireSync({ dir, url: t.url, key, version: 'docs' }, flags);
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  return { code, stderr, summary: JSON.parse(lines[0] ?? '') as Summary };
}

/** The pets reference's id, and its published and draft definitions (null when it has none). */
async function petsReference(key: string, versionId: number) {
  const api = client(t.app, key);
  const all = (await api.get(`/all?versionId=${versionId}`)).json<{
    reference: Record<string, { title: string }>;
  }>();
  const id = Object.entries(all.reference).find(([, r]) => r.title === 'Pets')?.[0];
  expect(id).toBeDefined();
  const published = await api.get(`/reference/${id}/definition`);
  const draft = await api.get(`/reference/${id}/definition?draft=true`);
  return {
    id: Number(id),
    published: published.statusCode === 200 ? published.body : null,
    draft: draft.statusCode === 200 ? draft.body : null,
  };
}

describe('quire sync and the change report', () => {
  it('prints the breaking changes of what it uploads, and still publishes without --fail-on-breaking', async () => {
    const { key, version, dir } = await world();
    expect((await sync(dir, key, '--publish')).code).toBe(0);
    fs.writeFileSync(path.join(dir, 'refs/pets.yaml'), pets('2', false));
    const second = await sync(dir, key, '--publish');
    expect(second.code).toBe(0);
    expect(second.summary.ok).toBe(true);
    expect(second.summary.breaking).toEqual([
      expect.objectContaining({ file: 'refs/pets.yaml', kind: 'operation.removed' }),
    ]);
    expect(second.summary.breaking[0]?.path).toMatch(/delete/i);
    expect(second.stderr).toMatch(/refs\/pets\.yaml: breaking: operation\.removed at /);
    expect((await petsReference(key, version.id)).published).toBe(pets('2', false));
  });

  it('with --fail-on-breaking, uploads the draft, writes nothing else, publishes nothing and exits 1', async () => {
    const { key, version, dir } = await world();
    expect((await sync(dir, key, '--publish')).code).toBe(0);
    fs.writeFileSync(path.join(dir, 'refs/pets.yaml'), pets('2', false));
    fs.writeFileSync(path.join(dir, 'Guides/2 New.md'), '# New page\n\nNot yet.\n');
    const stopped = await sync(dir, key, '--publish', '--fail-on-breaking');
    expect(stopped.code).toBe(1);
    expect(stopped.summary.ok).toBe(false);
    expect(stopped.summary.breaking.map((b) => b.kind)).toEqual(['operation.removed']);
    expect(stopped.summary.pages.created).toBe(0);
    expect(stopped.summary.references).toMatchObject({ uploaded: 1, published: 0 });
    expect(stopped.stderr).toContain('--fail-on-breaking');
    const reference = await petsReference(key, version.id);
    // The published definition is the one clients use still; the breaking one waits as a draft.
    expect(reference.published).toBe(pets('1', true));
    expect(reference.draft).toBe(pets('2', false));
    const pages = (await client(t.app, key).get(`/all?versionId=${version.id}`)).json<{
      page: Record<string, { title: string }>;
    }>();
    expect(Object.values(pages.page).map((p) => p.title)).toEqual(['Introduction']);
  });

  it('with --fail-on-breaking and only additions, publishes the draft it checked and does the rest', async () => {
    const { key, version, dir } = await world();
    expect((await sync(dir, key, '--publish')).code).toBe(0);
    const added = pets(
      '2',
      true,
      ['  /pets:', '    get:', '      responses:', "        '200': { description: All pets }"].join('\n'),
    );
    fs.writeFileSync(path.join(dir, 'refs/pets.yaml'), added);
    fs.writeFileSync(path.join(dir, 'Guides/2 New.md'), '# New page\n\nNow.\n');
    const run = await sync(dir, key, '--publish', '--fail-on-breaking');
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary.ok).toBe(true);
    expect(run.summary.breaking).toEqual([]);
    expect(run.summary.pages).toMatchObject({ created: 1, published: 1 });
    expect(run.summary.references).toMatchObject({ uploaded: 1, published: 1 });
    const reference = await petsReference(key, version.id);
    expect(reference.published).toBe(added);
    expect(reference.draft).toBeNull();
  });

  it('with --fail-on-breaking, a new reference has nothing to break and is published', async () => {
    const { key, version, dir } = await world();
    const run = await sync(dir, key, '--publish', '--fail-on-breaking');
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary.breaking).toEqual([]);
    expect(run.summary.references).toMatchObject({ uploaded: 1, published: 1 });
    expect((await petsReference(key, version.id)).published).toBe(pets('1', true));
  });
});
