import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { makeTemplate, removeTemplate, type TestTemplate } from './templates.ts';

/**
 * Test apps on PostgreSQL each work in a schema of their own, `t_<run>_<random>`. Dropping one while
 * other test files still migrate races with the migrator's look at every schema, so a run drops its
 * schemas once, after all its tests; and before it, the left-overs of runs that died hours ago.
 * Concurrent runs (two checkouts on one database) never touch each other's schemas.
 */
const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

async function dropSchemas(url: string, keep: (run: string) => boolean): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      "select nspname from pg_namespace where nspname ~ '^t_[0-9a-z]{8,9}_[0-9a-f]{12}$'",
    );
    for (const { nspname } of rows) {
      if (keep(nspname.split('_')[1] ?? '')) continue;
      await client.query(`drop schema if exists ${client.escapeIdentifier(nspname)} cascade`);
    }
  } finally {
    await client.end();
  }
}

let template: TestTemplate | undefined;
let runDir: string | undefined;

/**
 * The migrations run once per run, into the template every test app's database is copied from
 * (test/helpers/templates.ts): on PostgreSQL a schema of this run's, named like the apps' ones.
 */
export async function setup(project: TestProject): Promise<void> {
  const run = Date.now().toString(36);
  // Forked test workers inherit the environment of this process.
  process.env.QUIRE_TEST_RUN = run;
  // Every temporary file of the run (a database per app, archives, CLI homes, the servers' own) goes
  // under one directory, removed at the end: a worker that is stopped rather than left to exit runs
  // no clean-up of its own.
  runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-run-'));
  process.env.TMPDIR = runDir;
  const url = process.env.TEST_DATABASE_URL;
  if (url) await dropSchemas(url, (other) => Date.now() - parseInt(other, 36) < STALE_AFTER_MS);
  template = await makeTemplate(url, `t_${run}_${'0'.repeat(12)}`);
  project.provide('quireTemplate', template);
}

export async function teardown(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  const run = process.env.QUIRE_TEST_RUN;
  if (template) removeTemplate(template);
  if (url && run) await dropSchemas(url, (other) => other !== run);
  if (runDir) fs.rmSync(runDir, { recursive: true, force: true });
}
