import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { DatabaseHandle, DialectName } from '../../db/dialect.ts';
import { int, type Executor } from '../../db/executor.ts';
import type { Database, PageHistoryTable } from '../../db/schema.ts';
import { BadRequestError, InvalidFieldError, NotFoundError, UniqueViolationError } from '../../errors.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { retryOnUniqueViolation, slugConflict } from '../../shared/retry.ts';
import { assertSlug, firstFreeSlug, slugify } from '../../shared/slug.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import { documentationRepository } from '../documentation/documentation.repository.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import { assertVersionInScope, type Actor, type ChangeContext } from '../keys/actor.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { PageReads } from './pages.fast-reads.ts';
import { presentPage, type Page } from './pages.presenter.ts';
import { PageReader } from './pages.reader.ts';
import { PageResponseCache } from './page-responses.ts';
import { PageRenderer, type RenderCacheOptions, type RenderStats } from './pages.renderer.ts';
import { pagesRepository as repo, type PageView } from './pages.repository.ts';
import type { PageBySlugInput, PageCreateInput, PageFormat, PageUpdateInput } from './pages.schemas.ts';
import { assertNotBlank } from '../../shared/text.ts';

export const CREATE_MESSAGE = 'Created using API';
export const UPDATE_MESSAGE = 'Updated using API';
export const PUBLISH_MESSAGE = 'Published using API';

/** Pages: create, update and publish here (one transaction each, history and audit inside it); reads in PageReader. */
export class PagesService {
  private readonly db: Kysely<Database>;
  private readonly dialect: DialectName;
  private readonly renderer: PageRenderer;
  private readonly reader: PageReader;

  constructor(
    database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    versions: VersionsService,
    private readonly documentation: DocumentationService,
    renderCache: RenderCacheOptions = {},
  ) {
    this.db = database.db;
    this.dialect = database.dialect;
    const reads = new PageReads(database.db, database.sqlite);
    this.renderer = new PageRenderer(reads, renderCache);
    this.reader = new PageReader(
      database.db,
      reads,
      this.renderer,
      versions,
      documentation,
      new PageResponseCache(() => database.changeStamp()),
    );
  }

  /** `GET /page/{id}`: the serialised answer, so a cached one is sent as it is. */
  getJson(actor: Actor, id: number, format: PageFormat): Promise<string> {
    return this.reader.getJson(actor, id, format);
  }

  getBySlugs(actor: Actor, query: PageBySlugInput): Promise<Page> {
    return this.reader.getBySlugs(actor, query);
  }

  renderStats(): RenderStats {
    return this.renderer.stats();
  }

  async create(
    actor: Actor,
    documentationId: number,
    input: PageCreateInput,
    ctx: ChangeContext,
  ): Promise<Page> {
    assertTitle(input.title);
    if (input.slug !== undefined) assertSlug('body.slug', input.slug);
    const message = input.message ?? CREATE_MESSAGE;
    return retryOnUniqueViolation(() =>
      this.db.transaction().execute(async (trx) => {
        const section = await this.documentation.resolve(trx, actor, documentationId);
        await documentationRepository.lockIndex(trx, this.dialect, section.id);
        const placement = await this.placement(trx, section.id, input.categoryTitle);
        let slug: string;
        if (input.slug !== undefined) {
          if ((await repo.slugOwner(trx, section.id, input.slug)) !== undefined)
            throw slugConflict('page', input.slug);
          slug = input.slug;
        } else {
          const base = slugify(input.title, 'page');
          slug = firstFreeSlug(base, await repo.slugsStartingWith(trx, section.id, base));
        }
        const now = toStoredDate(this.clock.now());
        const row = await explicitSlug(input.slug, () =>
          repo.insert(trx, {
            documentation_id: section.id,
            category_id: placement.categoryId,
            parent_page_id: null,
            title: input.title,
            slug,
            listed: int(false),
            content_draft: input.content,
            content_published: null,
            position: placement.position,
            deleted_at: null,
            created: now,
            updated: now,
          }),
        );
        const view = await this.view(trx, actor, row.id);
        await this.record(trx, ctx, actor.project.id, view, 'create', message, {
          documentationId: section.id,
          categoryId: placement.categoryId,
          position: placement.position,
          slug,
        });
        return presentPage(view);
      }),
    );
  }

  async update(actor: Actor, id: number, input: PageUpdateInput, ctx: ChangeContext): Promise<Page> {
    if (input.title === undefined && input.slug === undefined && input.content === undefined) {
      throw new BadRequestError('Give at least one of title, slug, content.', [
        { field: 'body', message: 'must have at least one of title, slug, content' },
      ]);
    }
    if (input.title !== undefined) assertTitle(input.title);
    if (input.slug !== undefined) assertSlug('body.slug', input.slug);
    const message = input.message ?? UPDATE_MESSAGE;
    return retryOnUniqueViolation(() =>
      this.db.transaction().execute(async (trx) => {
        const before = await this.view(trx, actor, id);
        await documentationRepository.lockIndex(trx, this.dialect, before.documentation_id);
        let slug = before.slug;
        if (input.slug !== undefined) {
          const owner = await repo.slugOwner(trx, before.documentation_id, input.slug);
          if (owner !== undefined && owner !== id) throw slugConflict('page', input.slug);
          slug = input.slug;
        } else if (input.title !== undefined) {
          slug = await this.regeneratedSlug(trx, before, input.title);
        }
        await explicitSlug(input.slug, () =>
          repo.update(trx, id, {
            ...(input.title !== undefined ? { title: input.title } : {}),
            ...(input.content !== undefined ? { content_draft: input.content } : {}),
            slug,
            updated: toStoredDate(this.clock.now()),
          }),
        );
        const after = await this.view(trx, actor, id);
        await this.record(trx, ctx, actor.project.id, after, 'update', message, {
          before: { title: before.title, slug: before.slug },
          after: { title: after.title, slug: after.slug },
          contentChanged: input.content !== undefined && input.content !== before.content_draft,
        });
        return presentPage(after);
      }),
    );
  }

  /** The draft becomes the published content. With no pending draft, nothing changes and nothing is recorded. */
  async publish(actor: Actor, id: number, ctx: ChangeContext): Promise<Page> {
    return this.db.transaction().execute(async (trx) => {
      const found = await this.view(trx, actor, id);
      await documentationRepository.lockIndex(trx, this.dialect, found.documentation_id);
      // Read again under the lock: a concurrent publish may have taken the draft meanwhile.
      const current = await this.view(trx, actor, id);
      if (current.content_draft === null) return presentPage(current);
      await repo.update(trx, id, {
        content_published: current.content_draft,
        content_draft: null,
        listed: int(true),
        updated: toStoredDate(this.clock.now()),
      });
      const after = await this.view(trx, actor, id);
      await this.record(trx, ctx, actor.project.id, after, 'publish', PUBLISH_MESSAGE, {
        wasListed: current.listed === 1,
      });
      return presentPage(after);
    });
  }

  /** A live page of the actor's project, honouring the key's version scope (404 / 403). */
  private async view(db: Executor, actor: Actor, id: number): Promise<PageView> {
    const view = await repo.findView(db, actor.project.id, id);
    if (!view) throw new NotFoundError(`Page ${id} not found.`);
    assertVersionInScope(actor, view.version_id);
    return view;
  }

  /**
   * Where a new page goes in the section's index (shared by categories and pages): after the named
   * category's last page (or right after the category), moving later entries down; otherwise at the end.
   */
  private async placement(
    db: Executor,
    documentationId: number,
    categoryTitle: string | undefined,
  ): Promise<{ categoryId: number | null; position: number }> {
    if (categoryTitle === undefined) {
      return { categoryId: null, position: await documentationRepository.nextPosition(db, documentationId) };
    }
    const wanted = foldCase(categoryTitle);
    const category = (await repo.categories(db, documentationId)).find((c) => foldCase(c.title) === wanted);
    if (!category) {
      throw new InvalidFieldError(
        'body.categoryTitle',
        `matches no category of documentation ${documentationId}`,
      );
    }
    const position = ((await repo.lastPositionInCategory(db, category.id)) ?? category.position) + 1;
    await repo.shiftFrom(db, documentationId, position);
    return { categoryId: category.id, position };
  }

  /**
   * The slug for a new title: generated and unique in the section. The page's own slug is no collision,
   * so a slug already of the new title's family (`base`, `base-2`…) is kept and an unchanged title
   * keeps its slug.
   */
  private async regeneratedSlug(db: Executor, page: PageView, title: string): Promise<string> {
    // An unchanged title keeps the slug, even one picked by hand: a client that always sends the
    // title must not move the page.
    if (title === page.title) return page.slug;
    const base = slugify(title, 'page');
    const family = new RegExp(`^${base}(-([2-9]|[1-9][0-9]+))?$`);
    if (family.test(page.slug)) return page.slug;
    return firstFreeSlug(base, await repo.slugsStartingWith(db, page.documentation_id, base));
  }

  private async record(
    trx: Executor,
    ctx: ChangeContext,
    projectId: number,
    page: PageView,
    operation: PageHistoryTable['operation'],
    message: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await repo.insertHistory(trx, {
      page_id: page.id,
      operation,
      message,
      title: page.title,
      slug: page.slug,
      content_draft: page.content_draft,
      content_published: page.content_published,
      api_key_id: ctx.actor?.keyId ?? null,
      created: toStoredDate(this.clock.now()),
    });
    const verb = operation === 'create' ? 'created' : operation === 'update' ? 'updated' : 'published';
    await this.audit.record(trx, ctx, {
      projectId,
      scope: 'content',
      entity: 'page',
      entityId: page.id,
      operation: operation === 'create' ? 'INS' : 'UPD',
      message: `Page '${page.title}' ${verb}`,
      details: { ...details, historyMessage: message },
    });
  }
}

function assertTitle(title: string): void {
  assertNotBlank('body.title', title);
}

const foldCase = (text: string): string => text.normalize('NFC').trim().toLocaleLowerCase('und');

/** A unique violation on a slug the caller chose is their conflict (409), not a race to retry. */
async function explicitSlug<T>(explicit: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof UniqueViolationError && explicit !== undefined) throw slugConflict('page', explicit);
    throw error;
  }
}
