import { parse as parseYaml } from 'yaml';
import { ContentError } from '../../content/content-error.ts';
import { parseMarkdocPage } from '../../content/markdoc-page.ts';
import { ArchiveError, ArchiveFileError, type ArchiveFile, type ImportArchive } from './import.archive.ts';
import { asFileError, objectOf, readGitSection, SETTINGS_FILES } from './import.git-index.ts';
import { nonEmptyString, SLUG_RE, type Folder } from './import.index.ts';
import type {
  ImportPlan,
  PlannedChangelog,
  PlannedReference,
  PlannedSection,
  PlannedVersion,
} from './import.plan.ts';
import { skipOrThrow, titleOf, type ReadState } from './import.warnings.ts';

/*
 * The platform's current Git format (0025-platform-git-format.md): `developerhub.yaml`, version
 * folders of section folders with `_settings.yaml` and `_nav.yaml`, Markdoc pages, `refs/`,
 * `changelogs/`. Older repositories have `settings.yaml`, no `_nav.yaml` and no `developerhub.yaml`.
 */

const DEFINITION_FILE = /\.(json|ya?ml)$/i;
const SECTION_KEYS = new Set(['title', 'published']);
const REFERENCE_KEYS = new Set(['title', 'published']);

/** The Git format is known by its layout: `developerhub.yaml`, or sections holding a settings file. */
export function isGitLayout(root: Folder): boolean {
  if (root.files.has('developerhub.yaml')) return true;
  return [...root.folders.values()].some((version) =>
    [...version.folders.values()].some((section) => SETTINGS_FILES.some((n) => section.files.has(n))),
  );
}

export async function readGitLayout(
  archive: ImportArchive,
  root: Folder,
  state: ReadState,
): Promise<ImportPlan> {
  const { warnings } = state;
  let variables: Record<string, unknown> | undefined;
  for (const [name, file] of root.files) {
    if (name.startsWith('.')) continue;
    if (name !== 'developerhub.yaml') {
      warnings.push({ file: file.path, message: "Not part of the Git format's layout: it was ignored." });
      continue;
    }
    const project = await readYaml(archive, file, state);
    if (project === null) continue;
    if (project.variables !== undefined) variables = objectOf(project.variables);
    const unkept = Object.keys(project).filter((k) => k !== 'variables');
    if (unkept.length > 0)
      warnings.push({
        file: file.path,
        message: `The project's ${unkept.join(', ')} belong to the platform's reader site, which Quire does not serve: left out.`,
      });
  }
  const addresses = new Map<string, string>();
  const versions: PlannedVersion[] = [];
  const changelogs: PlannedChangelog[] = [];
  for (const [name, folder] of [...root.folders].sort(([a], [b]) => a.localeCompare(b))) {
    if (name.startsWith('.')) continue;
    if (name === 'changelogs') {
      for (const [logName, log] of folder.folders)
        changelogs.push(await readChangelog(archive, logName, log, state));
    } else if (name === '_theme' || name === 'assets' || name === '_synced-blocks') {
      warnings.push({ file: `${name}/`, message: LEFT_OUT[name] ?? '' });
    } else {
      versions.push(await readVersion(archive, name, folder, state, addresses));
    }
  }
  if (versions.length === 0)
    throw new ArchiveError('it holds no version folder, so there is nothing to import.');
  return {
    versions,
    pages: state.pages,
    warnings,
    legacyParts: false,
    markdoc: { addresses, changelogs, variables },
  };
}

const LEFT_OUT: Record<string, string> = {
  _theme: "The theme belongs to the platform's reader site, which Quire does not serve: it was left out.",
  assets: 'Images and files are not stored by Quire: links to them were kept as written.',
  '_synced-blocks':
    'Synced blocks have no store in Quire: pages keep a synced-block placeholder where they used one.',
};

async function readVersion(
  archive: ImportArchive,
  folderName: string,
  folder: Folder,
  state: ReadState,
  addresses: Map<string, string>,
): Promise<PlannedVersion> {
  const settingsFile = SETTINGS_FILES.map((n) => folder.files.get(n)).find((f) => f !== undefined);
  const settings = settingsFile ? ((await readYaml(archive, settingsFile, state)) ?? {}) : {};
  const version: PlannedVersion = {
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

async function readSection(
  archive: ImportArchive,
  name: string,
  folder: Folder,
  state: ReadState,
  addresses: Map<string, string>,
): Promise<PlannedSection> {
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
async function readReferences(
  archive: ImportArchive,
  folder: Folder,
  rank: (name: string) => number,
  state: ReadState,
): Promise<PlannedReference[]> {
  const found: Array<{ stem: string; reference: PlannedReference }> = [];
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
async function readChangelog(
  archive: ImportArchive,
  name: string,
  folder: Folder,
  state: ReadState,
): Promise<PlannedChangelog> {
  const settingsFile = SETTINGS_FILES.map((n) => folder.files.get(n)).find((f) => f !== undefined);
  const settings = settingsFile ? ((await readYaml(archive, settingsFile, state)) ?? {}) : {};
  reportUnkept(settingsFile, settings, new Set(['title']), state);
  const posts: Array<PlannedChangelog['posts'][number] & { date: string }> = [];
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
  file: ArchiveFile | undefined,
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

async function readYaml(
  archive: ImportArchive,
  file: ArchiveFile,
  state: ReadState,
): Promise<Record<string, unknown> | null> {
  try {
    return objectOf(parseYaml(await archive.readText(file)));
  } catch (error) {
    skipOrThrow(state, asFileError(file, error), 'it was read as empty');
    return null;
  }
}
