import { parse as parseYaml } from 'yaml';
import { ContentError } from '../../content/content-error.ts';
import { parseMarkdocPage } from '../../content/markdoc-page.ts';
import type { SiteTheme } from '../projects/projects.service.ts';
import { ArchiveError, ArchiveFileError } from './import.archive.ts';
import {
  ASSETS_NOTE,
  GitBodies,
  imageType,
  readSyncedBlocks,
  type SyncedBlock,
} from './import.git-bodies.ts';
import { asFileError, objectOf, readGitSection, SETTINGS_FILES } from './import.git-index.ts';
import { readThemeFolder, themeSettings } from './import.git-theme.ts';
import { nonEmptyString, SLUG_RE, type Folder } from './import.index.ts';
import type {
  GitPlan,
  LayoutFile,
  LayoutSource,
  PlannedChangelog,
  PlannedReference,
  PlannedSection,
  PlannedVersion,
} from './import.plan.ts';
import { skipOrThrow, titleOf, type ReadState } from './import.warnings.ts';

/*
 * The platform's current Git format (0025-platform-git-format.md): `developerhub.yaml`, version
 * folders of section folders with `_settings.yaml` and `_nav.yaml`, Markdoc pages, `refs/`,
 * `changelogs/`, `_synced-blocks/`, `_theme/`, `assets/`. Older repositories have `settings.yaml`,
 * no `_nav.yaml` and no `developerhub.yaml`. Read from an archive, or from a folder by `quire sync`.
 */

const DEFINITION_FILE = /\.(json|ya?ml)$/i;
const SECTION_KEYS = new Set(['title', 'published']);
const REFERENCE_KEYS = new Set(['title', 'published']);

/** The Git format is known by its layout: `developerhub.yaml`, or sections holding a settings file. */
export function isGitLayout<F extends LayoutFile>(root: Folder<F>): boolean {
  if (root.files.has('developerhub.yaml')) return true;
  return [...root.folders.values()].some(isGitVersion);
}

/** A version folder of the Git format: one of its folders is a section with a settings file. */
export function isGitVersion<F extends LayoutFile>(folder: Folder<F>): boolean {
  return [...folder.folders.values()].some((section) => SETTINGS_FILES.some((n) => section.files.has(n)));
}

export async function readGitLayout<F extends LayoutFile>(
  archive: LayoutSource<F>,
  root: Folder<F>,
  state: ReadState,
): Promise<GitPlan<F>> {
  const { warnings } = state;
  let variables: Record<string, unknown> | undefined;
  let theme: SiteTheme = {};
  for (const [name, file] of root.files) {
    if (name.startsWith('.')) continue;
    if (name !== 'developerhub.yaml') {
      warnings.push({ file: file.path, message: "Not part of the Git format's layout: it was ignored." });
      continue;
    }
    const project = await readYaml(archive, file, state);
    if (project === null) continue;
    if (project.variables !== undefined) variables = objectOf(project.variables);
    if (project.settings !== undefined) theme = themeSettings(objectOf(project.settings), warnings);
    const unkept = Object.keys(project).filter((k) => k !== 'variables' && k !== 'settings');
    if (unkept.length > 0)
      warnings.push({
        file: file.path,
        message:
          unkept.length === 1
            ? `The project's ${unkept.join('')} belongs to the platform's reader site and has no place in Quire's: left out.`
            : `The project's ${unkept.join(', ')} belong to the platform's reader site and have no place in Quire's: left out.`,
      });
  }
  const addresses = new Map<string, string>();
  const versions: Array<PlannedVersion<F>> = [];
  const changelogs: Array<PlannedChangelog<F>> = [];
  let blocks = new Map<string, SyncedBlock<F>>();
  for (const [name, folder] of [...root.folders].sort(([a], [b]) => a.localeCompare(b))) {
    if (name.startsWith('.')) continue;
    if (name === 'changelogs') {
      for (const [logName, log] of folder.folders)
        changelogs.push(await readChangelog(archive, logName, log, state));
    } else if (name === '_theme') {
      theme = { ...theme, ...(await readThemeFolder(archive, folder, warnings)) };
    } else if (name === '_synced-blocks') {
      blocks = await readSyncedBlocks(folder, (file) => readBlock(archive, file, state), warnings);
    } else if (name === 'assets') {
      warnings.push({ file: 'assets/', message: `${countFiles(folder)} file(s): ${ASSETS_NOTE}` });
    } else {
      versions.push(await readVersion(archive, name, folder, state, addresses));
    }
  }
  const images = new Map(
    archive.files.filter((f) => imageType(f.path) !== undefined).map((f) => [f.path, f]),
  );
  if (versions.length === 0)
    throw new ArchiveError('it holds no version folder, so there is nothing to import.');
  return {
    versions,
    pages: state.pages,
    warnings,
    legacyParts: false,
    markdoc: { bodies: new GitBodies(archive, addresses, blocks, images), changelogs, variables, theme },
  };
}

async function readBlock<F extends LayoutFile>(
  archive: LayoutSource<F>,
  file: F,
  state: ReadState,
): Promise<string | null> {
  try {
    return parseMarkdocPage(await archive.readText(file)).body;
  } catch (error) {
    skipOrThrow(
      state,
      error instanceof ContentError ? new ArchiveFileError(file.path, error.message) : error,
    );
    return null;
  }
}

const countFiles = <F extends LayoutFile>(folder: Folder<F>): number =>
  [...folder.folders.values()].reduce((n, sub) => n + countFiles(sub), folder.files.size);

async function readVersion<F extends LayoutFile>(
  archive: LayoutSource<F>,
  folderName: string,
  folder: Folder<F>,
  state: ReadState,
  addresses: Map<string, string>,
): Promise<PlannedVersion<F>> {
  const settingsFile = SETTINGS_FILES.map((n) => folder.files.get(n)).find((f) => f !== undefined);
  const settings = settingsFile ? ((await readYaml(archive, settingsFile, state)) ?? {}) : {};
  const version: PlannedVersion<F> = {
    folder: folderName,
    name: titleOf(nonEmptyString(settings.name) ?? folderName, `${folder.path}/`, state),
    slug: SLUG_RE.test(folderName) ? folderName : undefined,
    published: settings.published !== false,
    sections: [],
    references: [],
  };
  for (const [, file] of folder.files) {
    if (file !== settingsFile)
      state.warnings.push({
        file: file.path,
        message: "Not part of the Git format's layout: it was ignored.",
      });
  }
  const order = (list: unknown) => (name: string) => {
    const i = Array.isArray(list) ? list.indexOf(name) : -1;
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const sectionRank = order(settings.documentations);
  const folders = [...folder.folders].sort(
    ([a], [b]) => sectionRank(a) - sectionRank(b) || a.localeCompare(b),
  );
  for (const [name, sub] of folders) {
    if (name === 'refs')
      version.references = await readReferences(archive, sub, order(settings.references), state);
    else version.sections.push(await readSection(archive, name, sub, state, addresses));
  }
  return version;
}

async function readSection<F extends LayoutFile>(
  archive: LayoutSource<F>,
  name: string,
  folder: Folder<F>,
  state: ReadState,
  addresses: Map<string, string>,
): Promise<PlannedSection<F>> {
  const settingsFile = SETTINGS_FILES.map((n) => folder.files.get(n)).find((f) => f !== undefined);
  const settings = settingsFile ? ((await readYaml(archive, settingsFile, state)) ?? {}) : {};
  reportUnkept(settingsFile, settings, SECTION_KEYS, state);
  const slug = SLUG_RE.test(name) ? name : undefined;
  const read = await readGitSection(archive, folder, slug ?? name, state);
  for (const [path, address] of read.addresses) addresses.set(path, address);
  return {
    folder: name,
    title: titleOf(nonEmptyString(settings.title) ?? name, settingsFile?.path ?? `${folder.path}/`, state),
    slug,
    published: settings.published !== false,
    given: {
      title: nonEmptyString(settings.title) !== undefined,
      published: typeof settings.published === 'boolean',
    },
    entries: read.entries,
  };
}

/** `refs/<name>.yaml|json`, each with its `<name>.settings.yaml`; in the version's order. */
async function readReferences<F extends LayoutFile>(
  archive: LayoutSource<F>,
  folder: Folder<F>,
  rank: (name: string) => number,
  state: ReadState,
): Promise<Array<PlannedReference<F>>> {
  const found: Array<{ stem: string; reference: PlannedReference<F> }> = [];
  for (const [name, file] of folder.files) {
    if (/\.settings\.ya?ml$/i.test(name)) continue;
    if (!DEFINITION_FILE.test(name)) {
      state.warnings.push({ file: file.path, message: 'Not a JSON or YAML definition: it was ignored.' });
      continue;
    }
    const stem = name.replace(DEFINITION_FILE, '');
    const settingsFile =
      folder.files.get(`${stem}.settings.yaml`) ?? folder.files.get(`${stem}.settings.yml`);
    const settings = settingsFile ? ((await readYaml(archive, settingsFile, state)) ?? {}) : {};
    reportUnkept(settingsFile, settings, REFERENCE_KEYS, state);
    found.push({ stem, reference: { file, published: settings.published !== false, draft: undefined } });
  }
  found.sort((a, b) => rank(a.stem) - rank(b.stem) || a.stem.localeCompare(b.stem));
  return found.map((f) => f.reference);
}

/** `changelogs/<name>/`: `_settings.yaml` and a Markdown file per post, written oldest first. */
async function readChangelog<F extends LayoutFile>(
  archive: LayoutSource<F>,
  name: string,
  folder: Folder<F>,
  state: ReadState,
): Promise<PlannedChangelog<F>> {
  const settingsFile = SETTINGS_FILES.map((n) => folder.files.get(n)).find((f) => f !== undefined);
  const settings = settingsFile ? ((await readYaml(archive, settingsFile, state)) ?? {}) : {};
  reportUnkept(settingsFile, settings, new Set(['title']), state);
  const posts: Array<PlannedChangelog<F>['posts'][number] & { date: string }> = [];
  for (const [fileName, file] of folder.files) {
    if (file === settingsFile) continue;
    if (!fileName.toLowerCase().endsWith('.md')) {
      state.warnings.push({ file: file.path, message: 'Not a post file (.md): it was ignored.' });
      continue;
    }
    try {
      const { meta } = parseMarkdocPage(await archive.readText(file));
      const stem = fileName.slice(0, -3);
      posts.push({
        file,
        title: titleOf(nonEmptyString(meta.title) ?? stem, file.path, state),
        slug: SLUG_RE.test(stem) ? stem : undefined,
        published: meta.published !== false,
        date: typeof meta.date === 'string' ? meta.date : '',
      });
    } catch (error) {
      skipOrThrow(
        state,
        error instanceof ContentError ? new ArchiveFileError(file.path, error.message) : error,
      );
    }
  }
  posts.sort((a, b) => a.date.localeCompare(b.date) || a.file.path.localeCompare(b.file.path));
  if (posts.some((p) => p.date !== ''))
    state.warnings.push({
      file: `${folder.path}/`,
      message: 'Posts keep their order, not their dates: a post is dated when it is imported.',
    });
  return {
    folder: name,
    title: nonEmptyString(settings.title) ?? name,
    slug: SLUG_RE.test(name) ? name : undefined,
    posts: posts.map(({ date: _date, ...post }) => post),
  };
}

function reportUnkept(
  file: LayoutFile | undefined,
  settings: Record<string, unknown>,
  kept: ReadonlySet<string>,
  state: ReadState,
): void {
  const unkept = Object.keys(settings).filter((k) => !kept.has(k));
  if (file !== undefined && unkept.length > 0)
    state.warnings.push({
      file: file.path,
      message: `The settings ${unkept.join(', ')} have no place in Quire and were left out.`,
    });
}

async function readYaml<F extends LayoutFile>(
  archive: LayoutSource<F>,
  file: F,
  state: ReadState,
): Promise<Record<string, unknown> | null> {
  try {
    return objectOf(parseYaml(await archive.readText(file)));
  } catch (error) {
    skipOrThrow(state, asFileError(file, error), 'it was read as empty');
    return null;
  }
}
