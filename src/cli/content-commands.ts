import fs from 'node:fs/promises';
import { UsageError, positiveInt, required } from './args.ts';
import { adminContext, command, type Command } from './command.ts';

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

export async function readFile(file: string): Promise<Buffer> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new UsageError(`cannot read ${file} (${code})`);
  }
}

const pageFields = {
  title: { type: 'string', value: 'TITLE', description: "the page's title" },
  slug: { type: 'string', value: 'SLUG', description: 'its slug (default: from the title)' },
  content: { type: 'string', value: 'TEXT', description: 'its contents, in Darkdown' },
  file: { type: 'string', value: 'PATH', description: 'a file holding its contents' },
  message: { type: 'string', value: 'MSG', description: "a message for the page's history" },
} as const;

/**
 * Contents through the same services as the API, acting as the administrator: pages, references,
 * changelogs. Audit entries name the CLI as their source.
 */
export const contentsCommands: Record<string, Command> = {
  'page create': command({
    summary: 'Create a page in a documentation section (as a draft)',
    options: {
      ...pageFields,
      title: { ...pageFields.title, required: true },
      documentation: { type: 'string', value: 'ID', required: true, description: 'the section' },
      category: { type: 'string', value: 'TITLE', description: 'the category it stands in' },
    },
    examples: [
      "quire page create --documentation 2 --title 'Install' --file install.md",
      "quire page create --documentation 2 --title Hello --content '# Hello' --category Basics",
    ],
    run: async ({ deps }, { values }) => {
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
  }),
  'page update': command({
    summary: "Change a page's title, slug or draft contents",
    args: ['ID'],
    options: pageFields,
    examples: ["quire page update 12 --file install.md --message 'New steps'"],
    run: async ({ deps }, { values, positionals }) => {
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
  }),
  'page publish': command({
    summary: "Publish a page's draft",
    args: ['ID'],
    options: {},
    examples: ['quire page publish 12'],
    run: async ({ deps }, { positionals }) => {
      const pageId = positiveInt(positionals[0] ?? '', 'page ID');
      return deps.pages.publish(await adminContext(deps, { pageId }), pageId);
    },
  }),
  'reference upload': command({
    summary: 'Upload an OpenAPI definition to a version (published unless --draft)',
    args: ['FILE'],
    options: {
      version: { type: 'string', value: 'ID', required: true, description: 'the version' },
      draft: { type: 'boolean', description: 'keep it as a draft' },
    },
    examples: ['quire reference upload --version 1 openapi.yaml'],
    run: async ({ deps }, { values, positionals }) => {
      const versionId = positiveInt(required(values.version, 'version'), '--version');
      const file = positionals[0] ?? '';
      return deps.references.upload(await adminContext(deps, { versionId }), {
        versionId,
        publish: values.draft !== true,
        readFile: () => readFile(file),
      });
    },
  }),
  'changelog create': command({
    summary: 'Create a changelog of a project',
    options: {
      project: { type: 'string', value: 'ID', required: true, description: 'the project' },
      title: { type: 'string', value: 'TITLE', required: true, description: "the changelog's title" },
      slug: { type: 'string', value: 'SLUG', description: 'its slug (default: from the title)' },
    },
    examples: ['quire changelog create --project 1 --title Releases'],
    run: async ({ deps }, { values }) => {
      const projectId = positiveInt(required(values.project, 'project'), '--project');
      const input = {
        title: required(values.title, 'title'),
        ...(values.slug !== undefined ? { slug: values.slug } : {}),
      };
      return deps.changelogs.create(await adminContext(deps, { projectId }), input);
    },
  }),
};
