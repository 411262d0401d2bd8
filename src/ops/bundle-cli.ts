/**
 * The admin command line as a few bundled files in dist/cli-bundle/, made by `npm run build` after
 * tsc. A command then loads its code from a handful of files instead of resolving several hundred
 * modules one by one, which was most of its start-up; what only some commands use (the server, sync,
 * the drivers of other databases) sits in chunks loaded when first imported. `bin/quire serve` keeps
 * running tsc's output: Fastify's plugins find their assets beside their own files.
 *
 *   node --import tsx src/ops/bundle-cli.ts [--out dist/cli-bundle]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export async function bundleCli(outdir: string): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    // The worker threads' tasks are an entry of their own: the pool finds `./tasks.js` beside it.
    entryPoints: { quire: 'src/cli/main.ts', tasks: 'src/workers/tasks.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    sourcemap: true,
    legalComments: 'linked',
    // Native addons and what loads files by path at run time stay packages of node_modules.
    external: ['better-sqlite3', 'pg-native', 'piscina', 'tsx'],
    // CommonJS packages inside an ES module bundle call require(): give every chunk one.
    banner: {
      js: "import { createRequire as quireRequire } from 'node:module'; const require = quireRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const at = process.argv.indexOf('--out');
  await bundleCli(path.resolve(ROOT, at > 0 ? (process.argv[at + 1] ?? '') : 'dist/cli-bundle'));
}
