/**
 * The client package (packages/cli): `quire sync` and `quire import` in one bundled file with every
 * pure dependency inside it, so that a CI job installs it in seconds and compiles nothing. The build
 * fails if anything of the server's storage reaches the bundle.
 *
 *   node --import tsx src/ops/bundle-client-cli.ts
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Nothing of these may be in the client: they are the server's storage and its drivers. */
const FORBIDDEN = [
  /node_modules\/(better-sqlite3|pg|pg-[a-z-]+|kysely|ioredis|fastify)\//,
  /^src\/(db|modules\/[a-z-]+\/[a-z.-]+\.(service|repository))/,
];

export async function bundleClientCli(outfile: string): Promise<void> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/cli/client-entry.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'linked',
    metafile: true,
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as quireRequire } from 'node:module'; const require = quireRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const found = inputs.filter((input) => FORBIDDEN.some((pattern) => pattern.test(input)));
  if (found.length > 0) throw new Error(`the client package must not hold ${found.join(', ')}`);
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  await bundleClientCli(path.join(ROOT, 'packages/cli/dist/quire.js'));
}
