import { parse as parseYaml } from 'yaml';
import { ContentError } from '../../content/content-error.ts';
import { parseMarkdocPage } from '../../content/markdoc-page.ts';
import { slugify } from '../../shared/slug.ts';
import { ArchiveFileError } from './import.archive.ts';
import { ASSETS_NOTE } from './import.git-bodies.ts';
import { nonEmptyString, SLUG_RE, type Folder } from './import.index.ts';
import type { LayoutFile, LayoutSource, PlannedCategory, PlannedPage } from './import.plan.ts';
import { skipOrThrow, titleOf, type ReadState } from './import.warnings.ts';

// One section of the platform's Git format: its page files, placed and ordered by `_nav.yaml`, or by
// their names and folders where a section has none (older repositories).

/** Front matter keys that say nothing Quire keeps; reported only when they hold something. */
const UNKEPT_KEYS = ['description', 'keywords', 'tags', 'index_title'];
const KEPT_KEYS = new Set(['type', 'title', 'slug', 'listed', 'hidden']);
export const SETTINGS_FILES = ['_settings.yaml', 'settings.yaml'];

interface GitPage<F extends LayoutFile> {
  key: string;
  page: PlannedPage<F>;
  /** what the front matter says, before the navigation has its say */
  listed: boolean;
  placed: boolean;
}

export interface GitSection<F extends LayoutFile> {
  entries: Array<PlannedPage<F> | PlannedCategory>;
  /** each page's address (`/section/page`), by its file's path */
  addresses: Map<string, string>;
}

export async function readGitSection<F extends LayoutFile>(
  archive: LayoutSource<F>,
  folder: Folder<F>,
  sectionSlug: string,
  state: ReadState,
): Promise<GitSection<F>> {
  const pages = new Map<string, GitPage<F>>();
  let others = 0;
  const collect = async (at: Folder<F>, prefix: string): Promise<void> => {
    for (const [name, file] of [...at.files].sort(([a], [b]) => a.localeCompare(b))) {
      if (prefix === '' && (SETTINGS_FILES.includes(name) || name === '_nav.yaml')) continue;
      if (!name.toLowerCase().endsWith('.md')) {
        others++;
        continue;
      }
      const key = `${prefix}${name.slice(0, -3)}`;
      const page = await readPage(archive, file, key, state);
      if (page !== null) pages.set(key, page);
    }
    for (const [name, sub] of [...at.folders].sort(([a], [b]) => a.localeCompare(b)))
      await collect(sub, `${prefix}${name}/`);
  };
  await collect(folder, '');
  if (others > 0) {
    state.warnings.push({
      file: `${folder.path}/`,
      message: `${others} file(s) that are no pages: ${ASSETS_NOTE}`,
    });
  }
  const addresses = new Map<string, string>();
  for (const { page } of pages.values())
    addresses.set(page.file.path, `/${sectionSlug}/${page.slug ?? slugify(page.title, 'page')}`);

  const navFile = folder.files.get('_nav.yaml');
  const entries = navFile ? await fromNav(archive, navFile, pages, state) : fromNames(pages);
  // Pages the navigation does not name are kept, unlisted, under their folder's page or at the end.
  for (const git of pages.values()) {
    if (git.placed) continue;
    git.page.listed = false;
    const parent = pages.get(git.key.slice(0, Math.max(0, git.key.lastIndexOf('/'))));
    if (parent !== undefined && parent !== git) parent.page.children.push(git.page);
    else entries.push(git.page);
    git.placed = true;
  }
  return { entries, addresses };
}

async function readPage<F extends LayoutFile>(
  archive: LayoutSource<F>,
  file: F,
  key: string,
  state: ReadState,
): Promise<GitPage<F> | null> {
  let meta: Record<string, unknown>;
  try {
    meta = parseMarkdocPage(await archive.readText(file)).meta;
  } catch (error) {
    skipOrThrow(
      state,
      error instanceof ContentError ? new ArchiveFileError(file.path, error.message) : error,
    );
    return null;
  }
  const stem = key.slice(key.lastIndexOf('/') + 1);
  for (const name of Object.keys(meta)) {
    const value = meta[name];
    const unkept = UNKEPT_KEYS.includes(name)
      ? typeof value === 'string' && value.trim() !== '' && !(name === 'index_title' && value === meta.title)
      : !KEPT_KEYS.has(name);
    if (unkept)
      state.warnings.push({
        file: file.path,
        message: `The front matter key '${name}' has no place in Quire and was left out.`,
      });
  }
  const slug = [meta.slug, stem].find((s): s is string => typeof s === 'string' && SLUG_RE.test(s));
  state.pages++;
  return {
    key,
    listed: meta.listed !== false && meta.hidden !== true,
    placed: false,
    page: {
      kind: 'page',
      file,
      title: titleOf(nonEmptyString(meta.title) ?? stem, file.path, state),
      slug,
      listed: undefined,
      children: [],
    },
  };
}

/** Without `_nav.yaml`: pages in file-name order, `setup/*.md` the children of `setup.md`. */
function fromNames<F extends LayoutFile>(
  pages: Map<string, GitPage<F>>,
): Array<PlannedPage<F> | PlannedCategory> {
  const entries: Array<PlannedPage<F>> = [];
  for (const git of pages.values()) {
    const parent = pages.get(git.key.slice(0, Math.max(0, git.key.lastIndexOf('/'))));
    if (parent !== undefined && parent !== git) parent.page.children.push(git.page);
    else entries.push(git.page);
    git.page.listed = git.listed;
    git.placed = true;
  }
  return entries;
}

/**
 * `_nav.yaml`: `items` of categories (`category`, `items`), pages (`page`, `icon`, `items`) and bare
 * page names, and links. A page appears where the navigation puts it, with its children.
 */
async function fromNav<F extends LayoutFile>(
  archive: LayoutSource<F>,
  file: F,
  pages: Map<string, GitPage<F>>,
  state: ReadState,
): Promise<Array<PlannedPage<F> | PlannedCategory>> {
  let nav: unknown;
  try {
    nav = parseYaml(await archive.readText(file));
  } catch (error) {
    skipOrThrow(state, asFileError(file, error), 'the pages were ordered by their names');
    return fromNames(pages);
  }
  const left = { icons: 0, links: 0 };
  const missing: string[] = [];
  const place = (items: unknown, top: boolean): Array<PlannedPage<F> | PlannedCategory> => {
    const out: Array<PlannedPage<F> | PlannedCategory> = [];
    for (const item of Array.isArray(items) ? (items as unknown[]) : []) {
      const entry = typeof item === 'string' ? { page: item } : objectOf(item);
      if (typeof entry.category === 'string' && top) {
        out.push({ kind: 'category', title: titleOf(entry.category, file.path, state) });
        out.push(...place(entry.items, false));
        continue;
      }
      if (entry.link !== undefined) {
        left.links++;
        continue;
      }
      const key = typeof entry.page === 'string' ? entry.page.replace(/\.md$/i, '') : undefined;
      const git = key === undefined ? undefined : pages.get(key);
      if (git === undefined || git.placed) {
        if (key !== undefined && git === undefined) missing.push(key);
        continue;
      }
      if (entry.icon !== undefined) left.icons++;
      git.placed = true;
      git.page.listed = git.listed;
      git.page.children.push(...(place(entry.items, false) as Array<PlannedPage<F>>));
      out.push(git.page);
    }
    return out;
  };
  const root = objectOf(nav);
  const entries = place(root.items, true);
  const said = (n: number, what: string) => (n === 0 ? [] : [`${n} ${what}`]);
  const unkept = [...said(left.links, 'link(s)'), ...said(left.icons, 'icon(s)')];
  if (unkept.length > 0)
    state.warnings.push({
      file: file.path,
      message: `Quire's indexes have no links or icons: ${unkept.join(' and ')} were left out.`,
    });
  for (const key of missing)
    state.warnings.push({
      file: file.path,
      message: `The navigation names '${key}', which has no page file.`,
    });
  return entries;
}

export const objectOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

export function asFileError(file: LayoutFile, error: unknown): unknown {
  return error instanceof Error && error.name.startsWith('YAML')
    ? new ArchiveFileError(file.path, `it is not valid YAML (${error.message.split('\n')[0] ?? ''})`)
    : error;
}
