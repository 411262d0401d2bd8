import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { createKey, createProject } from './factories.ts';
import { multipart } from './references.ts';
import { client } from './test-app.ts';
import { zipTexts } from './zip.ts';

/** What import and export tests do through HTTP: import an archive, read back what it made. */

export interface ImportReport {
  versions: Array<{ id: number; name: string; slug: string }>;
  documentation: number;
  categories: number;
  pages: number;
  references: number;
  warnings: Array<{ file: string; message: string }>;
}

export interface ReadPage {
  id: number;
  title: string;
  slug: string;
  path: string;
  listed: boolean;
  contentDraft: string | null;
  contentPublished: string | null;
}

/** An enterprise project with nothing in it, and a key for everything. */
export async function emptyProject(deps: Deps) {
  const project = await createProject(deps, { plan: 'enterprise' });
  const { key } = await createKey(deps, project.id);
  return { project, key };
}

/** POST /import with the archive in the multipart field `file`, as clients send it. */
export async function importZip(app: FastifyInstance, key: string, zip: Buffer, query = '') {
  const body = await multipart([
    { name: 'file', content: zip, filename: 'export.zip', type: 'application/zip' },
  ]);
  return client(app, key).post(`/import${query}`, undefined, body);
}

/** Every file of the project's Darkdown export but the manifest (whose ids and dates differ). */
export async function exportFiles(app: FastifyInstance, key: string): Promise<Record<string, string>> {
  const res = await client(app, key).get('/export?format=darkdown');
  expect(res.statusCode).toBe(200);
  const files = await zipTexts(res.rawPayload);
  delete files['manifest.json'];
  return files;
}

/** Every page of the project, read through GET /page/{id}, by its path. */
export async function pagesByPath(app: FastifyInstance, key: string): Promise<Map<string, ReadPage>> {
  const all = (await client(app, key).get('/all')).json<{ page: Record<string, unknown> }>();
  const pages = new Map<string, ReadPage>();
  for (const id of Object.keys(all.page)) {
    const page = (await client(app, key).get(`/page/${id}`)).json<ReadPage>();
    pages.set(page.path, page);
  }
  return pages;
}

/** What a project holds, to prove that a refused import wrote nothing. */
export async function contentsOf(app: FastifyInstance, key: string) {
  return (await client(app, key).get('/all')).json<Record<string, Record<string, unknown>>>();
}
