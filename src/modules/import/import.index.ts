import { ContentError } from '../../content/content-error.ts';
import { parsePageFile, type PageFile, type PageFileOptions } from '../../content/page-file.ts';
import { SLUG_PATTERN } from '../../shared/slug.ts';
import { entryFileName } from '../export/archive-names.ts';
import { ArchiveFileError, type ArchiveFile } from './import.archive.ts';
import type { LayoutFile, LayoutSource, PlannedCategory, PlannedPage } from './import.plan.ts';
import { oneLine, skipOrThrow, titleOf, type ReadState } from './import.warnings.ts';

// An archive's folders, and a section's index read from them: its page files in order, their front
// matter, and each page's children (import.layout.ts reads versions, sections and references).

export const SLUG_RE = new RegExp(SLUG_PATTERN);
/** Front matter keys a page file may have; any other is reported (darkdown.md §5). */
const PAGE_KEYS = new Set(['type', 'title', 'slug', 'listed', 'hidden']);

/** A folder of the archive: its files and its sub-folders, by name. */
export interface Folder<F extends LayoutFile = ArchiveFile> {
  /** within the archive, without a trailing slash ('' for the root) */
  path: string;
  files: Map<string, F>;
  folders: Map<string, Folder<F>>;
}

export const emptyFolder = <F extends LayoutFile>(path: string): Folder<F> => ({
  path,
  files: new Map(),
  folders: new Map(),
});

export function tree<F extends LayoutFile>(files: readonly F[]): Folder<F> {
  const root = emptyFolder<F>('');
  for (const file of files) {
    const segments = file.path.split('/');
    const name = segments.pop() ?? '';
    let folder = root;
    for (const segment of segments) {
      let next = folder.folders.get(segment);
      if (next === undefined) {
        next = emptyFolder(folder.path === '' ? segment : `${folder.path}/${segment}`);
        folder.folders.set(segment, next);
      }
      folder = next;
    }
    folder.files.set(name, file);
  }
  return root;
}

/**
 * One folder of a section's index: its numbered entry files in order, each page's children from the
 * folder named after it (with or without its number).
 */
export async function readIndex<F extends LayoutFile>(
  archive: LayoutSource<F>,
  folder: Folder<F>,
  top: boolean,
  state: ReadState,
): Promise<Array<PlannedPage<F> | PlannedCategory>> {
  const files = [...folder.files]
    .flatMap(([name, file]) => {
      if (top && name === 'settings.json') return [];
      const parsed = entryFileName(name);
      if (parsed === null) {
        state.warnings.push({ file: file.path, message: 'Not a page file (.md): it was ignored.' });
        return [];
      }
      return [{ file, number: parsed.number, stem: parsed.name }];
    })
    .sort(
      (a, b) =>
        (a.number ?? Number.MAX_SAFE_INTEGER) - (b.number ?? Number.MAX_SAFE_INTEGER) ||
        a.file.path.localeCompare(b.file.path),
    );

  const entries: Array<PlannedPage<F> | PlannedCategory> = [];
  const claimed = new Set<string>();
  for (const { file, stem, number } of files) {
    let meta: Record<string, unknown>;
    try {
      meta = await readMeta(archive, file);
    } catch (error) {
      // Its children's folder, if any, is then named after no page: its pages are kept a level up.
      skipOrThrow(state, error);
      continue;
    }
    const type = meta.type ?? 'page';
    if (type === 'category') {
      if (!top) {
        state.warnings.push({
          file: file.path,
          message: 'A category among child pages has no place in Quire: it was left out.',
        });
        continue;
      }
      entries.push({
        kind: 'category',
        title: titleOf(nonEmptyString(meta.title) ?? stem, file.path, state),
      });
      continue;
    }
    if (type === 'link' || type === 'separator') {
      state.warnings.push({
        file: file.path,
        message: `Quire's indexes have no ${type} entries: it was left out.`,
      });
      continue;
    }
    if (type !== 'page') {
      state.warnings.push({
        file: file.path,
        message: `Unknown entry type ${JSON.stringify(type)}: it was left out.`,
      });
      continue;
    }
    for (const key of Object.keys(meta)) {
      if (!PAGE_KEYS.has(key)) {
        state.warnings.push({
          file: file.path,
          message: `The front matter key '${key}' has no place in Quire and was left out.`,
        });
      }
    }
    let slug: string | undefined;
    if (meta.slug !== undefined) {
      if (typeof meta.slug === 'string' && SLUG_RE.test(meta.slug)) slug = meta.slug;
      else
        state.warnings.push({
          file: file.path,
          message: 'The slug is not a valid slug: one was made from the title.',
        });
    }
    const listed =
      typeof meta.listed === 'boolean'
        ? meta.listed
        : typeof meta.hidden === 'boolean'
          ? !meta.hidden
          : undefined;
    state.pages++;
    const page: PlannedPage<F> = {
      kind: 'page',
      file,
      title: titleOf(nonEmptyString(meta.title) ?? stem, file.path, state),
      slug,
      listed,
      children: [],
    };
    const childFolderName = childFolderOf(folder, stem, number, claimed);
    if (childFolderName !== undefined) {
      claimed.add(childFolderName);
      const sub = folder.folders.get(childFolderName) ?? emptyFolder<F>('');
      page.children = (await readIndex(archive, sub, false, state)) as Array<PlannedPage<F>>;
    }
    entries.push(page);
  }
  for (const [name, sub] of folder.folders) {
    if (claimed.has(name)) continue;
    // A folder that names no page of this index: its pages are kept, at this level, rather than lost.
    state.warnings.push({
      file: `${sub.path}/`,
      message: 'This folder is named after no page beside it: its pages were added at its level.',
    });
    entries.push(...(await readIndex(archive, sub, false, state)));
  }
  return entries;
}

/**
 * The folder of a page's children: named after its file, with or without the number. A line break in
 * the name may stand in one of them and not the other, so names are compared as one line too.
 */
function childFolderOf(
  folder: Folder<LayoutFile>,
  stem: string,
  number: number | null,
  claimed: ReadonlySet<string>,
): string | undefined {
  const wanted = [stem, `${number ?? ''} ${stem}`];
  const free = [...folder.folders.keys()].filter((n) => !claimed.has(n));
  return (
    wanted.find((n) => free.includes(n)) ?? free.find((n) => wanted.some((w) => oneLine(w) === oneLine(n)))
  );
}

async function readMeta<F extends LayoutFile>(
  source: LayoutSource<F>,
  file: F,
): Promise<Record<string, unknown>> {
  const text = await source.readText(file);
  return source.pageMeta ? source.pageMeta(file, text) : parsePage(file, text).meta;
}

/** A page file parsed, or a 400 naming it. */
export function parsePage(file: LayoutFile, text: string, options?: PageFileOptions): PageFile {
  try {
    return parsePageFile(text, options);
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    throw new ArchiveFileError(file.path, error.message);
  }
}

export const nonEmptyString = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
