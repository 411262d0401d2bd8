import { setImmediate } from 'node:timers/promises';
import { stringify as toYaml } from 'yaml';
import { renderMarkdoc, type MarkdocLinks } from '../../content/index.ts';
import { writeFrontMatter } from '../../content/front-matter.ts';
import { bool, type Executor } from '../../db/executor.ts';
import { parseVariables } from '../../shared/serialised.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { pageAddresses, pageFilePaths } from '../pages/markdoc-links.ts';
import { exportRepository as repo, type ExportPage, type ExportVersion } from './export.repository.ts';
import { gitLayoutRepository as gitRepo } from './export.git-layout.repository.ts';

/*
 * `GET /export?format=markdoc`: the project in the platform's Git layout (0032-markdoc-output.md),
 * which `POST /import` reads back (0025-platform-git-format.md). A page file carries one body: the
 * published one, or the draft of a page never published; a pending draft is not carried.
 */

/** What the layout is written into: the export's archive. */
export type AddFile = (name: string, bytes: Buffer) => Promise<void>;

/** Folder names the importer reads as something other than a version. */
const NOT_VERSIONS = new Set(['changelogs', '_theme', 'assets', '_synced-blocks']);
const CONTENTS_BATCH = 20;

const yamlFile = (value: unknown): Buffer => Buffer.from(toYaml(value), 'utf8');

/** A page or post file: front matter, a blank line, the Markdoc body. */
const markdocFile = (meta: Record<string, unknown>, body: string): Buffer =>
  Buffer.from(`---\n${writeFrontMatter(meta)}---\n\n${body}\n`, 'utf8');

export async function writeGitLayout(
  db: Executor,
  project: { id: number; name: string },
  versions: readonly ExportVersion[],
  add: AddFile,
  signal: AbortSignal,
): Promise<void> {
  const variables = parseVariables(await repo.variables(db, project.id));
  const hasVariables = Object.keys(variables).length > 0;
  await add('developerhub.yaml', yamlFile({ title: project.name, ...(hasVariables ? { variables } : {}) }));
  for (const version of versions) {
    const folder = NOT_VERSIONS.has(version.slug) ? `${version.slug}-version` : version.slug;
    await writeVersion(db, version, folder, add, signal);
  }
  for (const changelog of await gitRepo.changelogs(db, project.id)) {
    const dir = `changelogs/${changelog.slug}`;
    await add(`${dir}/_settings.yaml`, yamlFile({ title: changelog.title }));
    let previous = Number.NEGATIVE_INFINITY;
    for (const post of await gitRepo.posts(db, changelog.id)) {
      signal.throwIfAborted();
      // The import orders posts by date, then by file name: posts written in the same millisecond
      // (an import's) get dates a millisecond apart, in the order they were written.
      previous = Math.max(Date.parse(post.created), previous + 1);
      const date = toStoredDate(previous);
      const meta = { title: post.title, date, published: bool(post.published) };
      await add(`${dir}/${post.slug}.md`, markdocFile(meta, renderMarkdoc(post.content)));
    }
  }
}

async function writeVersion(
  db: Executor,
  version: ExportVersion,
  folder: string,
  add: AddFile,
  signal: AbortSignal,
): Promise<void> {
  const sections = await repo.sections(db, version.id);
  const categories = await repo.categories(db, version.id);
  const pages = await repo.pages(db, version.id);
  const references = await repo.references(db, version.id);
  const written = references.filter((r) => r.format_published !== null || r.format_draft !== null);
  await add(
    `${folder}/_settings.yaml`,
    yamlFile({
      name: version.name,
      published: bool(version.published),
      documentations: sections.map((s) => s.slug),
      references: written.map((r) => r.slug),
    }),
  );

  const sectionSlug = new Map(sections.map((s) => [s.id, s.slug]));
  const rows = pages.map((p) => ({
    id: p.id,
    parent_page_id: p.parent_page_id,
    slug: p.slug,
    documentation_slug: sectionSlug.get(p.documentation_id) ?? '',
  }));
  const paths = pageFilePaths(rows);
  // One map of addresses for the version: each page's links are relative to its own file.
  const addresses = pageAddresses(rows, paths);
  for (const section of sections) {
    const dir = `${folder}/${section.slug}`;
    await add(
      `${dir}/_settings.yaml`,
      yamlFile({ title: section.title, published: bool(section.published) }),
    );
    const own = pages.filter((p) => p.documentation_id === section.id);
    const key = (page: ExportPage) => (paths.get(page.id) ?? '').slice(section.slug.length + 1, -3);
    await add(`${dir}/_nav.yaml`, yamlFile({ items: navigation(section.id, categories, own, key) }));
    for (let start = 0; start < own.length; start += CONTENTS_BATCH) {
      await setImmediate();
      signal.throwIfAborted();
      const batch = own.slice(start, start + CONTENTS_BATCH);
      const contents = new Map(
        (
          await repo.contents(
            db,
            batch.map((p) => p.id),
          )
        ).map((c) => [c.id, c]),
      );
      for (const page of batch) {
        const stored = contents.get(page.id);
        const body = stored?.content_published ?? stored?.content_draft ?? '';
        const links: MarkdocLinks = { file: paths.get(page.id) ?? '', pages: addresses };
        const meta = { title: page.title, listed: bool(page.listed) };
        await add(
          `${folder}/${paths.get(page.id) ?? `${section.slug}/${page.slug}.md`}`,
          markdocFile(meta, renderMarkdoc(body, links)),
        );
      }
    }
  }

  for (const reference of written) {
    const published = bool(reference.published) && reference.format_published !== null;
    const format = published ? reference.format_published : reference.format_draft;
    const text = await repo.definition(db, reference.id, !published);
    if (text === null || format === null) continue;
    await add(`${folder}/refs/${reference.slug}.${format}`, Buffer.from(text, 'utf8'));
    await add(
      `${folder}/refs/${reference.slug}.settings.yaml`,
      yamlFile({ title: reference.title, published }),
    );
  }
}

type NavItem = string | { page: string; items: NavItem[] } | { category: string; items: NavItem[] };

/**
 * `_nav.yaml`'s items: the section's top-level pages and categories by position, the pages after a
 * category inside it (as the index reads), each page's children under it.
 */
function navigation(
  sectionId: number,
  categories: ReadonlyArray<{ id: number; documentation_id: number; title: string; position: number }>,
  pages: readonly ExportPage[],
  key: (page: ExportPage) => string,
): NavItem[] {
  const live = new Set(pages.map((p) => p.id));
  const children = new Map<number | null, ExportPage[]>();
  for (const page of pages) {
    const parent = page.parent_page_id !== null && live.has(page.parent_page_id) ? page.parent_page_id : null;
    children.set(parent, [...(children.get(parent) ?? []), page]);
  }
  const item = (page: ExportPage): NavItem => {
    const below = children.get(page.id) ?? [];
    return below.length === 0 ? key(page) : { page: key(page), items: below.map(item) };
  };
  const top = [
    ...categories
      .filter((c) => c.documentation_id === sectionId)
      .map((c) => ({ position: c.position, id: c.id, category: c.title, page: undefined })),
    ...(children.get(null) ?? []).map((p) => ({
      position: p.position,
      id: p.id,
      category: undefined,
      page: p,
    })),
  ].sort(
    (a, b) =>
      a.position - b.position || (isCategory(a) === isCategory(b) ? a.id - b.id : isCategory(a) ? -1 : 1),
  );
  const items: NavItem[] = [];
  let category: { category: string; items: NavItem[] } | null = null;
  for (const entry of top) {
    if (entry.category !== undefined) {
      category = { category: entry.category, items: [] };
      items.push(category);
    } else if (entry.page !== undefined) (category?.items ?? items).push(item(entry.page));
  }
  return items;
}

const isCategory = (entry: { category: string | undefined }): boolean => entry.category !== undefined;
