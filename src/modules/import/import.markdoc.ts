import type { UseCaseContext } from '../../auth/actor.ts';
import { ContentError } from '../../content/content-error.ts';
import { parseMarkdocPage } from '../../content/markdoc-page.ts';
import { AppError } from '../../errors.ts';
import type { ChangelogsService } from '../changelogs/changelogs.service.ts';
import type { ProjectsService } from '../projects/projects.service.ts';
import { ArchiveFileError, type ImportArchive } from './import.archive.ts';
import type { ImportWarning, LayoutFile, LayoutSource, MarkdocPlan } from './import.plan.ts';

// What an import of the platform's Git format does besides Quire's own layout: Markdoc bodies become
// Darkdown, and the project's variables and changelogs are written (0025-platform-git-format.md).

/** A page or post file's body as Darkdown, with a warning for each kind of tag kept as text. */
export async function readMarkdocBody<F extends LayoutFile>(
  archive: LayoutSource<F>,
  file: F,
  plan: MarkdocPlan<F>,
  warnings: ImportWarning[],
): Promise<string> {
  let body: string;
  try {
    body = parseMarkdocPage(await archive.readText(file)).body;
  } catch (error) {
    if (error instanceof ContentError) throw new ArchiveFileError(file.path, error.message);
    throw error;
  }
  const converted = await plan.bodies.convert(file.path, body);
  for (const [message, count] of converted.unconverted)
    warnings.push({ file: file.path, message: `${message} (${count} ${count === 1 ? 'time' : 'times'}).` });
  return converted.body;
}

/**
 * `developerhub.yaml`'s variables join the project's, so `%product%` keeps reading the same; a name
 * the project has already takes the imported value, and a warning says so.
 */
export async function importVariables(
  ctx: UseCaseContext,
  projects: ProjectsService,
  variables: Record<string, unknown>,
  warnings: ImportWarning[],
): Promise<void> {
  let replaced: string[];
  try {
    replaced = await projects.addVariables(ctx, variables);
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 400) throw error;
    warnings.push({
      file: 'developerhub.yaml',
      message: `The variables were not imported: ${error.message}`,
    });
    return;
  }
  if (replaced.length > 0)
    warnings.push({
      file: 'developerhub.yaml',
      message: `The project's variables ${replaced.join(', ')} now hold the imported values.`,
    });
}

/** Each changelog and its posts, oldest first, so that the newest reads first as it did. */
export async function importChangelogs(
  ctx: UseCaseContext,
  changelogs: ChangelogsService,
  archive: ImportArchive,
  plan: MarkdocPlan,
  warnings: ImportWarning[],
  step: () => void,
): Promise<number> {
  let posts = 0;
  for (const planned of plan.changelogs) {
    // The slug comes from the title, as a changelog made here: the project may hold the folder's name.
    const changelog = await changelogs.create(ctx, { title: planned.title });
    for (const post of planned.posts) {
      await changelogs.createPost(ctx, changelog.id, {
        title: post.title,
        ...(post.slug !== undefined ? { slug: post.slug } : {}),
        published: post.published,
        content: await readMarkdocBody(archive, post.file, plan, warnings),
      });
      posts++;
      step();
    }
  }
  return posts;
}
