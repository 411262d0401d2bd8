import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/dialect.ts';
import { upgradeDatabase } from '../../src/upgrade.ts';
import { captureTemplate, type SchemaTemplate } from './pg-template.ts';

/**
 * The database every test app starts from, made once per run by the real migrator
 * (test/helpers/global-setup.ts): on PostgreSQL a schema and the script that copies it, on SQLite a
 * file that each app's is a copy of. Test apps then run the migrator again, which finds nothing to do,
 * as an instance restarted over its database does.
 */
export type TestTemplate = ({ dialect: 'postgres' } & SchemaTemplate) | { dialect: 'sqlite'; file: string };

declare module 'vitest' {
  export interface ProvidedContext {
    /** null when the suite runs without its global setup: each app then runs every migration */
    quireTemplate: TestTemplate | null;
  }
}

/** Runs every migration into `schema` (created), as an app's first start over an empty one does. */
export async function migrateSchema(url: string, schema: string): Promise<void> {
  const handle = openDatabase(url, { schema });
  try {
    await upgradeDatabase(handle, schema);
  } finally {
    await handle.close();
  }
}

/** Runs every migration into a new SQLite file, left whole on disk (no write-ahead log beside it). */
export async function migrateSqliteFile(file: string): Promise<void> {
  const handle = openDatabase(`sqlite:${file}`);
  try {
    await upgradeDatabase(handle);
    handle.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    await handle.close();
  }
}

/** Migrates the run's template: into the schema `schema` with `url`, or else into a SQLite file. */
export async function makeTemplate(url: string | undefined, schema: string): Promise<TestTemplate> {
  if (url === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-template-'));
    const file = path.join(dir, 'quire.db');
    await migrateSqliteFile(file);
    return { dialect: 'sqlite', file };
  }
  await migrateSchema(url, schema);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return { dialect: 'postgres', ...(await captureTemplate(client, schema)) };
  } finally {
    await client.end();
  }
}

/** Removes a SQLite template's directory; a PostgreSQL one goes with the run's other schemas. */
export function removeTemplate(template: TestTemplate): void {
  if (template.dialect === 'sqlite') fs.rmSync(path.dirname(template.file), { recursive: true, force: true });
}
