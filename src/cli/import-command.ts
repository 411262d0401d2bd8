import { positiveInt, required } from './args.ts';
import { adminContext, command } from './command.ts';
import { readFile } from './content-commands.ts';
import { IMPORT_FLAGS } from './import-remote.ts';
import { ProgressBar } from './progress.ts';
import { SERVER_OPTIONS } from './sync/sync.args.ts';

/**
 * `bin/quire import --project ID FILE.zip` through the import service on DATABASE_URL. Without
 * `--project`, main.ts runs the same command against a server instead (`--url`/`QUIRE_URL` and
 * `--key`/`QUIRE_KEY`, src/cli/import-remote.ts), as the small client package does.
 */
export const IMPORT_COMMAND = command({
  summary: 'Import an export archive as new versions: into a project (--project) or over HTTP (--url)',
  args: ['FILE.zip'],
  options: {
    project: { type: 'string', value: 'ID', description: 'the project, on DATABASE_URL' },
    ...IMPORT_FLAGS,
    url: { ...SERVER_OPTIONS.url, required: false, description: 'a server instead (with --key)' },
    key: { ...SERVER_OPTIONS.key, required: false },
  },
  examples: [
    'quire import --project 1 export.zip',
    'QUIRE_URL=… QUIRE_KEY=… quire import export.zip --strict',
  ],
  run: async ({ deps, io }, { values, positionals }) => {
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    const bytes = await readFile(positionals[0] ?? '');
    const bar = new ProgressBar(io.stderr, io.stderrIsTerminal, 'importing');
    try {
      return await deps.imports.import(await adminContext(deps, { projectId }), bytes, {
        published: values.draft === true ? 'draft' : 'keep',
        strict: values.strict === true,
        progress: (done, total) => bar.update(done, total),
      });
    } finally {
      bar.end();
    }
  },
});
