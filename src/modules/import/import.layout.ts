import type { ExportManifest, ManifestVersion } from '../export/export.manifest.ts';
import { ArchiveError, ArchiveFileError, type ArchiveFile, type ImportArchive } from './import.archive.ts';
import { FEEDBACK_FILE } from './import.feedback.ts';
import { isGitLayout, readGitLayout } from './import.git-layout.ts';
import { nonEmptyString, readIndex, SLUG_RE, tree, type Folder } from './import.index.ts';
import type {
  ImportPlan,
  ImportWarning,
  LayoutFile,
  LayoutSource,
  PlannedReference,
  PlannedSection,
  PlannedVersion,
} from './import.plan.ts';
import { skipOrThrow, titleOf, type ReadState } from './import.warnings.ts';

/** The names of definition files in a version's `refs/` folder: JSON or YAML. */
const DEFINITION_FILE = /\.(json|ya?ml)$/i;

/**
 * Reads the layout of an export (decisions.md §6) — Quire's own, or the platform's Darkdown exports, or
 * its Git format (import.git-layout.ts) —
 * into what an import creates. Every page file is read and parsed here, before anything is written:
 * a bad one is skipped with a warning (with `strict`, a 400); their bodies are read again as they are
 * written. What Quire has no place for becomes a warning, never a silent loss.
 */
export async function readLayout(
  archive: ImportArchive,
  options: { strict: boolean } = { strict: false },
): Promise<ImportPlan> {
  const warnings: ImportWarning[] = [];
  const state: ReadState = { pages: 0, warnings, strict: options.strict, ownExport: false };
  const root = tree(archive.files);
  if (isGitLayout(root)) return readGitLayout(archive, root, state);
  const manifestFile = root.files.get('manifest.json');
  let manifest: ExportManifest | null = null;
  try {
    manifest = manifestFile ? await readManifest(archive, manifestFile) : null;
  } catch (error) {
    skipOrThrow(state, error, 'versions were read without it');
  }
  state.ownExport = manifest?.kind === 'quire-export';
  for (const [name, file] of root.files) {
    if (file !== manifestFile)
      warnings.push({ file: file.path, message: `Not part of an export's layout: ${name} was ignored.` });
  }
  const versions: PlannedVersion[] = [];
  for (const [folderName, folder] of sortedFolders(root, manifest)) {
    const known = manifest?.versions.find((v) => v.folder === folderName);
    versions.push(await readVersion(archive, folderName, folder, known, state));
  }
  if (versions.length === 0)
    throw new ArchiveError('it holds no version folder, so there is nothing to import.');
  const legacyParts = state.ownExport && manifest?.formatVersion === 1;
  return { versions, pages: state.pages, warnings, legacyParts };
}

/**
 * Reads a folder that holds one version's sections (and `refs/`) at its root, as `quire sync` is given:
 * the same rules as an export's version folder, with no manifest.
 */
export async function readVersionLayout<F extends LayoutFile>(
  source: LayoutSource<F>,
  name: string,
): Promise<{ version: PlannedVersion<F>; pages: number; warnings: ImportWarning[] }> {
  const state: ReadState = { pages: 0, warnings: [], strict: true, ownExport: false };
  const version = await readVersion(source, name, tree(source.files), undefined, state);
  return { version, pages: state.pages, warnings: state.warnings };
}

async function readManifest(archive: ImportArchive, file: ArchiveFile): Promise<ExportManifest | null> {
  const value = parseJson(await archive.readText(file), file);
  if (typeof value !== 'object' || value === null || !Array.isArray((value as ExportManifest).versions))
    return null;
  const manifest = value as ExportManifest;
  return { ...manifest, versions: manifest.versions.filter((v) => typeof v === 'object' && v !== null) };
}

/** Versions in the manifest's order where it names them; the others by name. */
function sortedFolders(root: Folder, manifest: ExportManifest | null): Array<[string, Folder]> {
  const rank = (name: string): number => {
    const index = manifest?.versions.findIndex((v) => v.folder === name) ?? -1;
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  return [...root.folders].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

async function readVersion<F extends LayoutFile>(
  archive: LayoutSource<F>,
  folderName: string,
  folder: Folder<F>,
  known: ManifestVersion | undefined,
  state: ReadState,
): Promise<PlannedVersion<F>> {
  const version: PlannedVersion<F> = {
    folder: folderName,
    name:
      typeof known?.name === 'string' && known.name.trim() !== ''
        ? known.name
        : titleOf(folderName, `${folder.path}/`, state),
    slug: typeof known?.slug === 'string' && SLUG_RE.test(known.slug) ? known.slug : undefined,
    published: known?.published === true,
    sections: [],
    references: [],
  };
  for (const [name, file] of folder.files) {
    // Readers' feedback is read once the version's pages exist (import.feedback.ts).
    if (name === FEEDBACK_FILE) continue;
    state.warnings.push({
      file: file.path,
      message: "Not part of an export's layout: files beside the sections were ignored.",
    });
  }
  const sections: Array<{ position: number; section: PlannedSection<F> }> = [];
  for (const [name, sub] of folder.folders) {
    if (name === 'refs') {
      version.references = readReferences(sub, known, state.warnings);
      continue;
    }
    const settingsFile = sub.files.get('settings.json');
    let settings: Record<string, unknown> = {};
    try {
      if (settingsFile) settings = objectOf(parseJson(await archive.readText(settingsFile), settingsFile));
    } catch (error) {
      skipOrThrow(state, error, 'the section was read without it');
    }
    const section: PlannedSection<F> = {
      folder: name,
      title: titleOf(nonEmptyString(settings.title) ?? name, settingsFile?.path ?? `${sub.path}/`, state),
      slug: typeof settings.slug === 'string' && SLUG_RE.test(settings.slug) ? settings.slug : undefined,
      published: settings.published !== false && settings.hidden !== true,
      given: {
        title: nonEmptyString(settings.title) !== undefined,
        published: typeof settings.published === 'boolean' || typeof settings.hidden === 'boolean',
      },
      entries: [],
    };
    if (settingsFile) {
      for (const key of Object.keys(settings)) {
        if (!['title', 'slug', 'published', 'position', 'hidden'].includes(key)) {
          state.warnings.push({
            file: settingsFile.path,
            message: `The setting '${key}' has no place in Quire and was left out.`,
          });
        }
      }
    }
    section.entries = await readIndex(archive, sub, true, state);
    const position = typeof settings.position === 'number' ? settings.position : Number.MAX_SAFE_INTEGER;
    sections.push({ position, section });
  }
  sections.sort((a, b) => a.position - b.position || a.section.folder.localeCompare(b.section.folder));
  version.sections = sections.map((s) => s.section);
  return version;
}

function readReferences<F extends LayoutFile>(
  folder: Folder<F>,
  known: ManifestVersion | undefined,
  warnings: ImportWarning[],
): Array<PlannedReference<F>> {
  const drafts = folder.folders.get('drafts');
  const references: Array<PlannedReference<F>> = [];
  for (const [name, file] of [...folder.files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!DEFINITION_FILE.test(name)) {
      warnings.push({ file: file.path, message: 'Not a JSON or YAML definition: it was ignored.' });
      continue;
    }
    const listed = known?.references?.find((r) => r.file === `refs/${name}`);
    // The pending draft: the file the manifest names, or one of the same name in any format.
    const stem = name.replace(DEFINITION_FILE, '');
    const draftName =
      typeof listed?.draftFile === 'string'
        ? listed.draftFile.replace(/^refs\/drafts\//, '')
        : [...(drafts?.files.keys() ?? [])].find((n) => n.replace(DEFINITION_FILE, '') === stem);
    references.push({
      file,
      published: listed === undefined ? true : listed.published === true,
      draft: draftName === undefined ? undefined : drafts?.files.get(draftName),
    });
  }
  return references;
}

function parseJson(text: string, file: LayoutFile): unknown {
  try {
    return JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (error) {
    throw new ArchiveFileError(file.path, `it is not valid JSON (${(error as Error).message})`);
  }
}

const objectOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
