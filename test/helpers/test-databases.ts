import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { copyTemplate, type SchemaTemplate } from './pg-template.ts';

/** Set by test/helpers/global-setup.ts, which drops this run's PostgreSQL schemas at the end. */
const RUN = process.env.QUIRE_TEST_RUN ?? Date.now().toString(36);
const template = inject('quireTemplate');

/** A new name in this run's namespace: `t_<run>_<random>`. */
export const newSchemaName = (): string => `t_${RUN}_${randomBytes(6).toString('hex')}`;

/**
 * Copies of the template for the apps of one test file, made one ahead: the next app's schema is
 * made while the current test runs, on a connection of its own (named so, not `quire <schema>` as
 * the apps' are). One copy at a time; a failed one fails the app that takes it.
 */
class SchemaSupply {
  private readonly pool: pg.Pool;
  private next: Promise<string> | undefined;

  constructor(
    url: string,
    private readonly source: SchemaTemplate,
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: 1,
      allowExitOnIdle: true,
      application_name: 'quire-test-schemas',
    });
    this.pool.on('error', () => undefined);
  }

  private async copy(): Promise<string> {
    const schema = newSchemaName();
    const client = await this.pool.connect();
    try {
      await copyTemplate(client, this.source, schema);
    } finally {
      client.release();
    }
    return schema;
  }

  /** A schema no app has had, and the copy for the next app under way. */
  take(): Promise<string> {
    const current = this.next ?? this.copy();
    const following = current.then(
      () => this.copy(),
      () => this.copy(),
    );
    following.catch(() => undefined);
    this.next = following;
    return current;
  }

  /** Starts the first copy (a test file's imports take longer than it does). */
  prime(): void {
    if (this.next) return;
    this.next = this.copy();
    this.next.catch(() => undefined);
  }
}

const supply =
  process.env.TEST_DATABASE_URL && template?.dialect === 'postgres'
    ? new SchemaSupply(process.env.TEST_DATABASE_URL, template)
    : undefined;
supply?.prime();

/**
 * Where a new app's database is: on PostgreSQL a new schema, on SQLite a file in a new directory
 * (under the run's temporary directory, which global-setup.ts removes at the end);
 * with `migrated` empty (the app's migrator makes everything), otherwise a copy of the template.
 */
export async function freshDatabase(
  url: string | undefined,
  migrated: boolean,
): Promise<{ databaseUrl: string; schema?: string }> {
  if (url) return { databaseUrl: url, schema: migrated || !supply ? newSchemaName() : await supply.take() };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-'));
  const file = path.join(dir, 'quire.db');
  if (!migrated && template?.dialect === 'sqlite') fs.copyFileSync(template.file, file);
  return { databaseUrl: `sqlite:${file}` };
}
