import { isGitLayout, readGitLayout } from '../../modules/import/import.git-layout.ts';
import { tree } from '../../modules/import/import.index.ts';
import { readMarkdocBody } from '../../modules/import/import.markdoc.ts';
import type { GitPlan, ImportWarning } from '../../modules/import/import.plan.ts';
import type { ReadState } from '../../modules/import/import.warnings.ts';
import { slugify } from '../../shared/slug.ts';
import {
  localState,
  SyncInputError,
  type DirFile,
  type FolderSource,
  type LocalState,
} from './sync.local.ts';

/*
 * `quire sync` of a repository in the platform's Git format (0025-platform-git-format.md): recognised
 * as an import recognises it, read by the import's own readers, its pages converted to Darkdown as an
 * import converts them. One version folder is synced: the one `--version` names.
 */

/** What DIR holds as the Git format, or null when it is not in that layout. */
export async function readGitState(source: FolderSource, versionSlug: string): Promise<LocalState | null> {
  const root = tree(source.files);
  if (!isGitLayout(root)) return null;
  const state: ReadState = { pages: 0, warnings: [], strict: true, ownExport: false };
  let plan: GitPlan<DirFile>;
  try {
    plan = await readGitLayout(source, root, state);
  } catch (error) {
    // The layout reader speaks of an archive; here the same problems are in a folder.
    if (error instanceof Error && !(error instanceof SyncInputError))
      throw new SyncInputError(error.message.replace(/^The archive cannot be imported: /, ''));
    throw error;
  }
  const version = pickVersion(plan, versionSlug);
  const warnings = plan.warnings.filter((w) => belongsTo(w, version.folder));
  warnings.push(...notSynced(plan, version.folder));
  const bodyOf = async (file: DirFile): Promise<string> => {
    try {
      return await readMarkdocBody(source, file, plan.markdoc, warnings);
    } catch (error) {
      if (error instanceof Error && !(error instanceof SyncInputError))
        throw new SyncInputError(error.message.replace(/^The archive cannot be imported: /, ''));
      throw error;
    }
  };
  return localState(version, bodyOf, source.readText, warnings);
}

/**
 * The version folder `--version` names: by its name, else by its name made a slug (`v1.0` is `v1-0`),
 * else the only one there is.
 */
function pickVersion(plan: GitPlan<DirFile>, slug: string): GitPlan<DirFile>['versions'][number] {
  const { versions } = plan;
  const found =
    versions.find((v) => v.folder === slug) ??
    versions.find((v) => slugify(v.folder) === slug) ??
    (versions.length === 1 ? versions[0] : undefined);
  if (found === undefined)
    throw new SyncInputError(
      `no version folder is named '${slug}' (the folder has ${versions.map((v) => `'${v.folder}'`).join(', ')})`,
    );
  return found;
}

/** Warnings about this version's files, the images and blocks pages use, and files at the root. */
function belongsTo(warning: ImportWarning, folder: string): boolean {
  if (warning.file === 'developerhub.yaml') return false;
  const top = warning.file.split('/')[0] ?? '';
  return top === folder || top === 'assets' || top === '_synced-blocks' || !warning.file.includes('/');
}

/** What the repository holds that a sync of one version does not carry: `quire import` does. */
function notSynced(plan: GitPlan<DirFile>, folder: string): ImportWarning[] {
  const warnings: ImportWarning[] = [];
  const others = plan.versions.filter((v) => v.folder !== folder).map((v) => v.folder);
  if (others.length > 0)
    warnings.push({ file: '.', message: `Only '${folder}' was synced; ${others.join(', ')} were not.` });
  const { markdoc } = plan;
  if (markdoc.changelogs.length > 0)
    warnings.push({
      file: 'changelogs/',
      message: 'A sync fills one version: changelogs are not synced (quire import brings them).',
    });
  const project = [
    ...(markdoc.variables !== undefined ? ['variables'] : []),
    ...(Object.keys(markdoc.theme).length > 0 ? ['theme'] : []),
  ];
  if (project.length > 0)
    warnings.push({
      file: 'developerhub.yaml',
      message: `A sync fills one version: the project's ${project.join(' and ')} are not synced (quire import brings them).`,
    });
  return warnings;
}
