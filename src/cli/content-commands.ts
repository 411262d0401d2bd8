import fs from 'node:fs/promises';
import { UsageError, parseOptions, positiveInt, required } from './args.ts';
import { adminContext, type Command } from './command.ts';
import { ProgressBar } from './progress.ts';

/** `--content TEXT` or `--file PATH` (exactly one of them when `needed`); undefined when neither. */
async function contentOption(
  values: { content?: string; file?: string },
  needed: boolean,
): Promise<string | undefined> {
  if (values.content !== undefined && values.file !== undefined) {
    throw new UsageError('give --content or --file, not both');
  }
  if (values.file !== undefined) return readText(values.file);
  if (values.content === undefined && needed) throw new UsageError('--content or --file is required');
  return values.content;
}

async function readText(file: string): Promise<string> {
  const bytes = await readFile(file);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${file} is not UTF-8 text`);
  }
}

async function readFile(file: string): Promise<Buffer> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new UsageError(`cannot read ${file} (${code})`);
  }
}

const pageFields = {
  title: { type: 'string' },
  slug: { type: 'string' },
  content: { type: 'string' },
  file: { type: 'string' },
  message: { type: 'string' },
} as const;

/**
 * Contents through the same services as the API, acting as the administrator: pages, references,
 * changelogs. Audit entries name the CLI as their source.
 */
export const contentsCommands: Record<string, Command> = {
  'page create': async (deps, args) => {
    const { values } = parseOptions(args, {
      ...pageFields,
      documentation: { type: 'string' },
      category: { type: 'string' },
    });
    const documentationId = positiveInt(required(values.documentation, 'documentation'), '--documentation');
    const input = {
      title: required(values.title, 'title'),
      content: (await contentOption(values, true)) ?? '',
      ...(values.slug !== undefined ? { slug: values.slug } : {}),
      ...(values.category !== undefined ? { categoryTitle: values.category } : {}),
      ...(values.message !== undefined ? { message: values.message } : {}),
    };
    return deps.pages.create(await adminContext(deps, { documentationId }), documentationId, input);
  },
  'page update': async (deps, args) => {
    const { values, positionals } = parseOptions(args, pageFields, 1);
    const pageId = positiveInt(positionals[0] ?? '', 'page ID');
    const content = await contentOption(values, false);
    const input = {
      ...(values.title !== undefined ? { title: values.title } : {}),
      ...(values.slug !== undefined ? { slug: values.slug } : {}),
      ...(content !== undefined ? { content } : {}),
      ...(values.message !== undefined ? { message: values.message } : {}),
    };
    if (Object.keys(input).length === 0 || (Object.keys(input).length === 1 && 'message' in input)) {
      throw new UsageError('nothing to update: give --title, --slug, --content or --file');
    }
    return deps.pages.update(await adminContext(deps, { pageId }), pageId, input);
  },
  'page publish': async (deps, args) => {
    const { positionals } = parseOptions(args, {}, 1);
    const pageId = positiveInt(positionals[0] ?? '', 'page ID');
    return deps.pages.publish(await adminContext(deps, { pageId }), pageId);
  },
  'reference upload': async (deps, args) => {
    const { values, positionals } = parseOptions(
      args,
      { version: { type: 'string' }, draft: { type: 'boolean' } },
      1,
    );
    const versionId = positiveInt(required(values.version, 'version'), '--version');
    const file = positionals[0] ?? '';
    return deps.references.upload(await adminContext(deps, { versionId }), {
      versionId,
      publish: values.draft !== true,
      readFile: () => readFile(file),
    });
  },
  import: async (deps, args, io) => {
    const { values, positionals } = parseOptions(
      args,
      { project: { type: 'string' }, draft: { type: 'boolean' }, strict: { type: 'boolean' } },
      1,
    );
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    const file = positionals[0] ?? '';
    const bytes = await readFile(file);
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
  'changelog create': async (deps, args) => {
    const { values } = parseOptions(args, {
      project: { type: 'string' },
      title: { type: 'string' },
      slug: { type: 'string' },
    });
    const projectId = positiveInt(required(values.project, 'project'), '--project');
    const input = {
      title: required(values.title, 'title'),
      ...(values.slug !== undefined ? { slug: values.slug } : {}),
    };
    return deps.changelogs.create(await adminContext(deps, { projectId }), input);
  },
};
