import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ContentError } from '../../content/content-error.ts';
import { parsePageFile } from '../../content/page-file.ts';
import { readVersionLayout } from '../../modules/import/import.layout.ts';
import type {
  ImportWarning,
  LayoutFile,
  PlannedPage,
  PlannedVersion,
} from '../../modules/import/import.plan.ts';
import { firstFreeSlug, slugify } from '../../shared/slug.ts';

/** A page as DIR says it should be. */
export interface LocalPage {
  /** relative to DIR, `/`-separated */
  file: string;
  title: string;
  slug: string;
  /** `listed` (or `hidden`) from the front matter; undefined leaves the server's value alone */
  listed: boolean | undefined;
  content: string;
  hash: string;
  /** the category it stands in (children stand in their parent's) */
  category: string | undefined;
  /** the slug of the page it is a child of */
  parentSlug: string | undefined;
}

export interface LocalSection {
  folder: string;
  title: string;
  slug: string;
  published: boolean;
  /** what settings.json says itself: only that is compared with an existing section */
  given: { title: boolean; published: boolean };
  /** categories in index order */
  categories: string[];
  /** every page, parents before their children, in index order */
  pages: LocalPage[];
}

export interface LocalReference {
  file: string;
  title: string;
  text: string;
  contentType: string;
  /** the definition parsed, to compare with the server's when the formats differ */
  value: unknown;
}

export interface LocalState {
  sections: LocalSection[];
  references: LocalReference[];
  warnings: ImportWarning[];
}

/** DIR cannot be read as a layout (a bad front matter, unreadable JSON): the run stops before any request. */
export class SyncInputError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface DirFile extends LayoutFile {
  absolute: string;
}

/** DIR's files, each read once, as a layout reader takes them. */
export interface FolderSource {
  dir: string;
  files: DirFile[];
  readText: (file: DirFile) => Promise<string>;
  read: (file: DirFile) => Promise<Buffer>;
}

export async function folderSource(dir: string): Promise<FolderSource> {
  const files = await walk(path.resolve(dir), '');
  const texts = new Map<string, string>();
  const readText = async (file: DirFile): Promise<string> => {
    let text = texts.get(file.path);
    if (text === undefined) {
      try {
        text = utf8.decode(await fs.readFile(file.absolute));
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        // Pushed as it is, a file in another encoding would reach readers as replacement characters.
        throw new SyncInputError(`'${file.path}' is not UTF-8 text`);
      }
      texts.set(file.path, text);
    }
    return text;
  };
  return { dir, files, readText, read: (file) => fs.readFile(file.absolute) };
}

/** Reads DIR, one version folder of an export, into what the server should hold (decisions.md §6). */
export async function readLocalState(source: FolderSource): Promise<LocalState> {
  const { dir, files, readText } = source;
  let layout;
  try {
    layout = await readVersionLayout<DirFile>(
      { files, readText, pageMeta: (file, text) => withTitle(parseLocalPage(file, text)).meta },
      path.basename(path.resolve(dir)),
    );
  } catch (error) {
    // The layout reader speaks of an archive; here the same problems are in a folder.
    if (error instanceof Error && !(error instanceof SyncInputError))
      throw new SyncInputError(error.message.replace(/^The archive cannot be imported: /, ''));
    throw error;
  }
  const warnings = [...layout.warnings];
  const bodyOf = async (file: DirFile) => parseLocalPage(file, await readText(file)).body;
  return localState(layout.version, bodyOf, readText, warnings);
}

/**
 * What a version read by a layout reader (an export's, or the Git format's) should make on the server:
 * each page's body from `bodyOf`, slugs made unique within a section, references by their title.
 */
export async function localState<F extends DirFile>(
  version: PlannedVersion<F>,
  bodyOf: (file: F) => Promise<string>,
  readText: (file: F) => Promise<string>,
  warnings: ImportWarning[],
): Promise<LocalState> {
  const sections: LocalSection[] = [];
  for (const planned of version.sections) {
    const section: LocalSection = {
      folder: planned.folder,
      title: planned.title,
      slug: planned.slug ?? slugify(planned.title),
      published: planned.published,
      given: planned.given,
      categories: [],
      pages: [],
    };
    const taken = new Set<string>();
    const add = async (page: PlannedPage<F>, category: string | undefined, parent?: string) => {
      const body = await bodyOf(page.file);
      let slug = page.slug ?? slugify(page.title);
      if (taken.has(slug)) {
        const free = firstFreeSlug(slug, taken);
        warnings.push({
          file: page.file.path,
          message: `Another page of this section has the slug '${slug}': '${free}' is used instead.`,
        });
        slug = free;
      }
      taken.add(slug);
      const content = normaliseContent(body);
      section.pages.push({
        file: page.file.path,
        title: page.title,
        slug,
        listed: page.listed,
        content,
        hash: contentHash(content),
        category,
        parentSlug: parent,
      });
      for (const child of page.children) await add(child, category, slug);
    };
    let category: string | undefined;
    for (const entry of planned.entries) {
      if (entry.kind === 'category') {
        category = entry.title;
        section.categories.push(entry.title);
      } else {
        await add(entry, category);
      }
    }
    sections.push(section);
  }
  const references = await readReferences(
    version.references.map((r) => r.file),
    readText,
    warnings,
  );
  return { sections, references, warnings };
}

/** Line endings and the blank lines around a body do not count as a change, here or on the server. */
export function normaliseContent(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/^\n+/, '').trimEnd();
}

export const contentHash = (content: string): string =>
  createHash('sha256').update(content, 'utf8').digest('hex');

/**
 * A page file: an export's page envelope (`---draft` / `---published`), Markdown with an ordinary front
 * matter block, or plain Markdown. The body synced is the newest one (the draft, else the published).
 */
function parseLocalPage(file: LayoutFile, raw: string): { meta: Record<string, unknown>; body: string } {
  const text = raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
  if (!/^---[ \t]*\r?\n/.test(text)) return { meta: {}, body: text };
  const close = /^---(draft|published)?[ \t]*\r?$/m;
  const rest = text.slice(text.indexOf('\n') + 1);
  const marker = close.exec(rest);
  if (marker === null) throw new SyncInputError(`'${file.path}': its front matter block is never closed`);
  try {
    if (marker[1] !== undefined) {
      const envelope = parsePageFile(text);
      return { meta: envelope.meta, body: envelope.draft ?? envelope.published ?? '' };
    }
    const meta: unknown = parseYaml(rest.slice(0, marker.index)) ?? {};
    if (typeof meta !== 'object' || Array.isArray(meta))
      throw new SyncInputError(`'${file.path}': its front matter is not a mapping of keys to values`);
    return { meta: meta as Record<string, unknown>, body: rest.slice(marker.index + marker[0].length) };
  } catch (error) {
    if (error instanceof SyncInputError) throw error;
    const reason = error instanceof ContentError || error instanceof Error ? error.message : String(error);
    throw new SyncInputError(`'${file.path}': ${reason.split('\n')[0] ?? reason}`);
  }
}

/** Without a title in the front matter, the first level-one heading gives it, else the file name. */
function withTitle(page: { meta: Record<string, unknown>; body: string }): {
  meta: Record<string, unknown>;
  body: string;
} {
  if (typeof page.meta.title === 'string' && page.meta.title.trim() !== '') return page;
  const heading = /^#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(page.body)?.[1]?.trim();
  if (heading === undefined || heading === '') return page;
  return { ...page, meta: { ...page.meta, title: heading } };
}

async function readReferences<F extends DirFile>(
  files: F[],
  readText: (file: F) => Promise<string>,
  warnings: ImportWarning[],
): Promise<LocalReference[]> {
  const references: LocalReference[] = [];
  const titles = new Set<string>();
  for (const file of files) {
    const text = await readText(file);
    const json = /\.json$/i.test(file.path);
    let value: unknown;
    try {
      value = json ? JSON.parse(text) : parseYaml(text);
    } catch (error) {
      throw new SyncInputError(
        `'${file.path}' is not valid ${json ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
      );
    }
    const info = (value as { info?: { title?: unknown } } | null)?.info;
    const title = typeof info?.title === 'string' ? info.title.trim() : '';
    if (title === '') {
      warnings.push({
        file: file.path,
        message: 'No info.title: a reference is matched by it, so it was left out.',
      });
      continue;
    }
    if (titles.has(title.toLowerCase())) {
      warnings.push({
        file: file.path,
        message: `Another definition has the title '${title}': it was left out.`,
      });
      continue;
    }
    titles.add(title.toLowerCase());
    references.push({
      file: file.path,
      title,
      text,
      contentType: json ? 'application/json' : 'application/yaml',
      value,
    });
  }
  return references;
}

/** Every regular file below DIR; dot-files and dot-folders (`.git`, `.DS_Store`) are not content. */
export async function walk(root: string, relative: string): Promise<DirFile[]> {
  const entries = await fs.readdir(path.join(root, relative), { withFileTypes: true });
  const files: DirFile[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await walk(root, child)));
    else if (entry.isFile()) files.push({ path: child, absolute: path.join(root, child) });
  }
  return files;
}
