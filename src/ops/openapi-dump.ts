import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createDeps } from '../deps.ts';
import { upgradeDatabase } from '../upgrade.ts';

/**
 * Writes the OpenAPI document an app serves at /api/v1/openapi.json, without a server or a database
 * file: the document depends only on the routes, so an in-memory SQLite database is enough. For the
 * lints (`npm run lint:openapi`) and anyone who wants the document offline.
 *
 *   node --import tsx src/ops/openapi-dump.ts [--out FILE]   (standard output without --out)
 */
export async function openApiDocument(): Promise<unknown> {
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    QUIRE_BOOTSTRAP: 'false',
    LOG_LEVEL: 'silent',
  });
  const deps = createDeps(config);
  try {
    await upgradeDatabase(deps.database);
    const app = await buildApp(deps, { logger: false });
    try {
      return app.swagger();
    } finally {
      await app.close();
    }
  } finally {
    await deps.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const text = `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
  if (values.out === undefined) {
    process.stdout.write(text);
    return;
  }
  fs.mkdirSync(path.dirname(values.out), { recursive: true });
  fs.writeFileSync(values.out, text);
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await main();
