import type { Kysely } from 'kysely';
import { assertVersionInScope, type UseCaseContext } from '../../auth/actor.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { BadRequestError, NotFoundError, type FieldProblem } from '../../errors.ts';
import type { DocumentationRow, DocumentationService } from '../documentation/documentation.service.ts';
import type { VersionRow, VersionSelector, VersionsService } from '../versions/versions.service.ts';
import type { PageResponseCache } from './page-responses.ts';
import { pageStateTag, serialisePage } from './pages.presenter.ts';
import { refinedTag } from '../../shared/entity-tags.ts';
import type { PageRenderer } from './pages.renderer.ts';
import type { PageQueries, PageView, Source } from './pages.reads.repository.ts';
import type { PageBySlugInput, PageFormat } from './pages.schemas.ts';

const MAX_ID = 2147483647;

/** A serialised answer with its strong entity tag. */
export interface TaggedAnswer {
  body: string | Buffer;
  etag: string;
}

/** Reads of one page, by id or by slugs, with its contents in the format asked for. */
export class PageReader {
  constructor(
    private readonly reader: Kysely<Database>,
    private readonly queries: PageQueries,
    private readonly renderer: PageRenderer,
    private readonly versions: VersionsService,
    private readonly documentation: DocumentationService,
    private readonly responses: PageResponseCache,
  ) {}

  /**
   * The page as its serialised JSON answer and its entity tag, served from the response cache when
   * still current.
   */
  async getJson(ctx: UseCaseContext, id: number, format: PageFormat): Promise<TaggedAnswer> {
    const projectId = ctx.scope.project.id;
    const key = `${id}:${format}`;
    // Inside a transaction nothing is served from, or kept in, the cache: the transaction may see
    // its own writes, which no stamp covers until they commit.
    const stamp = ctx.transaction === undefined ? await this.responses.stamp(projectId) : null;
    const cached = stamp === null ? undefined : this.responses.get(key, stamp, projectId);
    if (cached) {
      assertVersionInScope(ctx.scope, cached.versionId);
      return cached;
    }
    const view = await this.queries.readView(ctx.transaction, projectId, id);
    if (!view) throw new NotFoundError(`Page ${id} not found.`);
    assertVersionInScope(ctx.scope, view.version_id);
    return this.answer(projectId, view, format, key, stamp, ctx.transaction);
  }

  /**
   * A page named by version, section and page slug. Where both the id and the slug of the version (or
   * of the section) are given, both must name the same one; otherwise the request is a 400. Where the
   * slugs led, and the answer, are cached under the project's stamp like reads by id.
   */
  async getBySlugs(ctx: UseCaseContext, query: PageBySlugInput): Promise<string | Buffer> {
    const pageSlug = requireSlugQuery(query);
    const projectId = ctx.scope.project.id;
    const format = query.format ?? 'darkdown';
    const stamp = ctx.transaction === undefined ? await this.responses.stamp(projectId) : null;
    const slugKey = stamp === null ? '' : resolutionKey(query, pageSlug);
    const resolved = stamp === null ? undefined : this.responses.resolution(slugKey, stamp, projectId);
    if (resolved && stamp !== null) {
      assertVersionInScope(ctx.scope, resolved.versionId);
      const key = `${resolved.pageId}:${format}`;
      const cached = this.responses.get(key, resolved.stamp, projectId);
      if (cached) return cached.body;
      // Where the slugs lead holds under this stamp: the page is read by its id, one query where
      // resolving the version and the section again took three.
      const view = await this.queries.readView(ctx.transaction, projectId, resolved.pageId);
      if (view) return (await this.answer(projectId, view, format, key, stamp, ctx.transaction)).body;
    }
    const db = ctx.transaction ?? this.reader;
    const version = await this.version(db, ctx, query);
    const section = await this.section(db, ctx, version, query);
    const view = await this.queries.readViewBySlug(ctx.transaction, projectId, section.id, pageSlug);
    if (!view) {
      throw new NotFoundError(`Page '${pageSlug}' not found in documentation '${section.slug}'.`);
    }
    const key = `${view.id}:${format}`;
    if (stamp !== null) {
      this.responses.setResolution(slugKey, stamp, {
        projectId,
        pageId: view.id,
        versionId: view.version_id,
      });
      // The page's answer by id may be current already: the same bytes, not made again.
      const byId = this.responses.get(key, stamp, projectId);
      if (byId) return byId.body;
    }
    return (await this.answer(projectId, view, format, key, stamp, ctx.transaction)).body;
  }

  /** Serialises a page read under `stamp` (read before the page was) and keeps it under that stamp. */
  private async answer(
    projectId: number,
    view: PageView<Source>,
    format: PageFormat,
    key: string,
    stamp: string | null,
    trx: Executor | undefined,
  ): Promise<TaggedAnswer> {
    const body = await this.serialise(view, format, trx, stamp);
    const state = pageStateTag(view);
    const etag = format === 'darkdown' ? state : refinedTag(state, body);
    if (stamp !== null) {
      this.responses.set(key, stamp, { projectId, versionId: view.version_id, body, etag });
    }
    return { body, etag };
  }

  /**
   * A revision of a page as a Page answer: the revision's title, slug and contents (rendered like the
   * page's own), the page's id and listing, and `updated` the revision's date. Never cached.
   */
  async revisionJson(
    ctx: UseCaseContext,
    id: number,
    revision: {
      title: string;
      slug: string;
      content_draft: string | null;
      content_published: string | null;
      created: string;
    },
    format: PageFormat,
  ): Promise<string | Buffer> {
    const view = await this.queries.readView(ctx.transaction, ctx.scope.project.id, id);
    if (!view) throw new NotFoundError(`Page ${id} not found.`);
    assertVersionInScope(ctx.scope, view.version_id);
    const at: PageView<Source> = {
      ...view,
      title: revision.title,
      slug: revision.slug,
      content_draft: revision.content_draft,
      content_published: revision.content_published,
      updated: revision.created,
    };
    return this.serialise(at, format, ctx.transaction);
  }

  /** `stamp`: the project's, read before the page was; null in a transaction or when none is kept. */
  private async serialise(
    view: PageView<Source>,
    format: PageFormat,
    trx: Executor | undefined,
    stamp: string | null = null,
  ): Promise<string | Buffer> {
    return serialisePage(view, await this.renderer.contents(view, format, { trx, stamp }));
  }

  private async version(db: Executor, ctx: UseCaseContext, query: PageBySlugInput): Promise<VersionRow> {
    const byId = query.version_id === undefined ? null : versionIdSelector(query.version_id);
    const bySlug = query.version_slug === undefined ? null : { slug: query.version_slug };
    const selector = byId ?? bySlug;
    if (selector === null) throw new Error('unreachable: the version parameters were checked');
    const first = await this.versions.resolve(db, ctx.scope, selector);
    if (byId !== null && bySlug !== null) {
      const second = await this.versions.resolve(db, ctx.scope, bySlug);
      if (second.id !== first.id) {
        throw disagreement('version_slug', `names version ${second.id}, not version_id ${query.version_id}`);
      }
    }
    return first;
  }

  private async section(
    db: Executor,
    ctx: UseCaseContext,
    version: VersionRow,
    query: PageBySlugInput,
  ): Promise<DocumentationRow> {
    let byId: DocumentationRow | null = null;
    if (query.documentation_id !== undefined) {
      byId = await this.documentation.resolve(db, ctx.scope, query.documentation_id);
      if (byId.version_id !== version.id) {
        throw new NotFoundError(
          `Documentation ${query.documentation_id} not found in version '${version.slug}'.`,
        );
      }
    }
    if (query.documentation_slug === undefined) {
      if (byId === null) throw new Error('unreachable: the documentation parameters were checked');
      return byId;
    }
    const bySlug = await this.documentation.findBySlug(db, version.id, query.documentation_slug);
    if (!bySlug) {
      throw new NotFoundError(
        `Documentation '${query.documentation_slug}' not found in version '${version.slug}'.`,
      );
    }
    if (byId !== null && byId.id !== bySlug.id) {
      throw disagreement(
        'documentation_slug',
        `names documentation ${bySlug.id}, not documentation_id ${query.documentation_id}`,
      );
    }
    return bySlug;
  }
}

/** The either-or rules of the specification, every missing part named at once. */
function requireSlugQuery(query: PageBySlugInput): string {
  const problems: FieldProblem[] = [];
  if (query.version_id === undefined && query.version_slug === undefined) {
    problems.push({ field: 'query.version_id', message: 'or query.version_slug is required' });
  }
  if (query.documentation_id === undefined && query.documentation_slug === undefined) {
    problems.push({ field: 'query.documentation_id', message: 'or query.documentation_slug is required' });
  }
  if (query.page_slug === undefined) problems.push({ field: 'query.page_slug', message: 'is required' });
  if (problems.length > 0 || query.page_slug === undefined) {
    throw new BadRequestError(
      `Missing query parameters: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}.`,
      problems,
    );
  }
  return query.page_slug;
}

/**
 * What a by-slug read asked for, as a cache key: the ids as given (digits or `latest`), and each slug
 * after its length, so that no two queries make the same key whatever their slugs hold.
 */
function resolutionKey(query: PageBySlugInput, pageSlug: string): string {
  return (
    `${query.version_id ?? '-'} ${slug(query.version_slug)} ${query.documentation_id ?? '-'} ` +
    `${slug(query.documentation_slug)} ${slug(pageSlug)}`
  );
}

function slug(text: string | undefined): string {
  return text === undefined ? '-' : `${text.length}:${text}`;
}

function versionIdSelector(raw: string): VersionSelector {
  if (raw === 'latest') return { latest: true };
  const id = Number(raw);
  if (id > MAX_ID) throw new NotFoundError(`Version ${raw} not found.`);
  return { id };
}

function disagreement(field: string, message: string): BadRequestError {
  return new BadRequestError(`query.${field} ${message}.`, [{ field: `query.${field}`, message }]);
}
