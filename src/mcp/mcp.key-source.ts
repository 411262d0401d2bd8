import { NotFoundError } from '../errors.ts';
import type { AllService } from '../modules/all/all.service.ts';
import type { Page } from '../modules/pages/pages.presenter.ts';
import type { PagesService } from '../modules/pages/pages.service.ts';
import type { ReferencesService } from '../modules/references/references.service.ts';
import type { SearchService } from '../modules/search/search.service.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { McpHits } from './mcp.hits.ts';
import type { KeyGate } from './mcp.key-gate.ts';
import type { McpReadSource } from './mcp.reader-tools.ts';

const HITS = 10;

export interface KeySourceDeps {
  reader: Kysely<Database>;
  all: AllService;
  pages: PagesService;
  search: SearchService;
  references: ReferencesService;
  /** the hits of search answers, kept for this server's calls */
  hits: McpHits;
}

/** The four dictionaries of `GET /all`, as far as the tools read them. */
export interface AllProject {
  version: Record<string, { name: string; slug: string; published: boolean }>;
  documentation: Record<string, { title: string; slug: string; versionId: number }>;
  reference: Record<string, { title: string; slug: string; versionId: number; published: boolean }>;
  page: Record<
    string,
    { title: string; slug: string; path: string; documentationId: number; listed: boolean }
  >;
}

/** `GET /all` through its use case, whole (in a read transaction of its own, so never streamed). */
export async function allOf(deps: KeySourceDeps, gate: KeyGate, published: boolean): Promise<AllProject> {
  const body = await deps.reader
    .transaction()
    .execute(
      async (trx) => (await deps.all.answer({ ...gate.context, transaction: trx }, { published })).body,
    );
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) throw new Error('the listing came as a stream');
  return JSON.parse(body.toString()) as AllProject;
}

/**
 * The reader tools over what an API key may read (extensions.md §9): each through the use case of
 * its HTTP operation, with that operation's permission and rate limit — search as `GET /search`,
 * `read_page` as `GET /page` by slugs (drafts included: `page.read`), `list_pages` as `GET /all`
 * (unpublished pages too when the key holds `page.read`), `get_operation` from the published
 * definition (`reference.read`). The key's version scope holds in every one of them.
 */
export function keySource(gate: KeyGate, deps: KeySourceDeps, siteRoot: string): McpReadSource {
  const url = (path: string) => `${siteRoot}/${path.replace(/^\//, '')}`;
  return {
    async search(query, version) {
      await gate.admit('searchContent', 'search.read');
      const body = await deps.search.searchJson(gate.context, {
        query,
        hits: HITS,
        ...(version === undefined ? {} : { version_slug: version }),
      });
      return deps.hits.of(body, siteRoot, url);
    },

    async readPage(path) {
      const [version, section, slug] = pathSegments(path, siteRoot);
      if (version === undefined || section === undefined || slug === undefined) {
        throw new NotFoundError(
          `'${path}' names no page: give it as version/section/page, such as /v1/guides/install.`,
        );
      }
      await gate.admit('getPageBySlug', 'page.read');
      const body = await deps.pages.getBySlugs(gate.context, {
        version_slug: version,
        documentation_slug: section,
        page_slug: slug,
        format: 'markdown',
      });
      const page = JSON.parse(body.toString()) as Page;
      const draft = page.contentDraft !== null;
      return {
        title: page.title,
        url: url(page.path),
        markdown: (draft ? page.contentDraft : page.contentPublished) ?? '',
        contents: draft ? 'draft' : 'published',
      };
    },

    async listPages(version, section) {
      await gate.admit('listAll', 'project.read');
      const all = await allOf(deps, gate, !gate.may('page.read'));
      const versions = Object.entries(all.version).filter(
        ([, v]) => version === undefined || v.slug === version,
      );
      if (versions.length === 0) throw new NotFoundError(`No version '${version ?? ''}' this key may read.`);
      const sections = Object.entries(all.documentation).filter(
        ([, d]) =>
          versions.some(([id]) => Number(id) === d.versionId) &&
          (section === undefined || d.slug === section),
      );
      if (sections.length === 0 && section !== undefined) throw new NotFoundError(`No section '${section}'.`);
      return Object.values(all.page)
        .filter((p) => sections.some(([id]) => Number(id) === p.documentationId))
        .map((p) => ({ title: p.title, url: url(p.path), description: null }));
    },

    async operations(reference) {
      await gate.admit('readReferenceDefinition', 'reference.read');
      const segments = pathSegments(reference, siteRoot);
      const [version, ref, slug] = segments;
      const wanted =
        ref === 'ref' && slug !== undefined
          ? { version, slug }
          : { version: undefined, slug: segments.join('/') };
      const all = await allOf(deps, gate, false);
      const found = Object.entries(all.reference).find(
        ([, r]) =>
          r.slug === wanted.slug &&
          (wanted.version === undefined || all.version[String(r.versionId)]?.slug === wanted.version),
      );
      const view =
        found === undefined
          ? null
          : await deps.references.publishedView(gate.context.scope.project.id, Number(found[0]));
      if (found === undefined || view === null) {
        throw new NotFoundError(`No published API reference '${reference}' this key may read.`);
      }
      const versionSlug = all.version[String(found[1].versionId)]?.slug ?? '';
      return {
        title: found[1].title,
        url: url(`${versionSlug}/ref/${found[1].slug}`),
        operations: view.groups.flatMap((g) => g.operations),
      };
    },
  };
}

/** The decoded segments of a page's path, a site path (`/sites/7/v1/…`) or a site URL; `.md` dropped. */
export function pathSegments(given: string, siteRoot: string): string[] {
  let path = given.trim();
  if (path.startsWith(siteRoot)) path = path.slice(siteRoot.length);
  else if (/^https?:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      return [];
    }
  }
  path = path
    .replace(/[?#].*$/, '')
    .replace(/^\/sites\/\d+(?=\/)/, '')
    .replace(/\.md$/, '');
  try {
    return path
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent);
  } catch {
    return [];
  }
}
