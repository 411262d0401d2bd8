import { assertVersionInScope, type Scope, type TransactionContext } from '../../auth/actor.ts';
import { int } from '../../db/executor.ts';
import { pickSlug, slugConflict } from '../../db/siblings.ts';
import { ChangeWrites } from '../../db/change-writes.ts';
import { InvalidFieldError, NotFoundError } from '../../errors.ts';
import { slugify } from '../../shared/slug.ts';
import type { Page } from './pages.presenter.ts';
import type { NewPageSection, PageView } from './pages.reads.repository.ts';
import { pagesRepository as repo, viewOf } from './pages.repository.ts';
import { explicitSlug } from './page-slugs.ts';
import type { PagePlacement } from './pages.placement.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { RecordArgs } from './pages.record.ts';
import type { PagePlacer } from './pages.placement.ts';
import type { PageQueries } from './pages.reads.repository.ts';

/** A page as an import writes it: its published contents, its pending draft, `listed`. */
export interface WholePageInput {
  title: string;
  slug?: string;
  published: string | null;
  draft: string | null;
  listed?: boolean;
  message: string;
}

interface SectionState {
  section: NewPageSection;
  /** the next free position at the section's top level; null once a page went into a category */
  end: number | null;
  /** the slugs of its pages, when the section was empty at first: all of them */
  slugs: Set<string> | null;
  /** the pages written through this memo (a parent named among them needs no read) */
  pages: Set<number>;
}

/**
 * What the next page of a section needs (its section's row, its place, the slugs taken), kept across
 * the pages that one caller writes into sections nobody else writes meanwhile (an import's, hidden
 * until it completes): read once per section, not once per page.
 */
export class SectionMemo {
  readonly sections = new Map<number, SectionState>();

  /** Something else placed in the section (a category): its end is read again. */
  forget(documentationId: number): void {
    this.sections.delete(documentationId);
  }
}

/** What PageWriter lends the whole-page write. */
export interface WholePageParts {
  queries: PageQueries;
  placer: PagePlacer;
  dialect: DialectName;
  publishMessage: string;
  now: () => string;
  /** a live page of the scope's project (404 / 403) */
  view: (trx: Executor, scope: Scope, id: number) => Promise<PageView>;
  /** the page's history entry and change event, as PageWriter records them */
  record: (...change: RecordArgs) => Promise<Page>;
}

/**
 * A page written whole (PageWriter.createWhole): its row inserted once as it ends up, then the history
 * entries and change events that create, publish and the updates of its draft and `listed` record
 * when made one after another, each with the page as it stood then.
 */
export async function writeWholePage(
  parts: WholePageParts,
  tx: TransactionContext,
  documentationId: number,
  input: WholePageInput,
  at: PagePlacement,
  memo: SectionMemo,
): Promise<Page> {
  const trx = tx.transaction;
  const projectId = tx.scope.project.id;
  const base = input.slug ?? slugify(input.title, 'page');
  let state = memo.sections.get(documentationId);
  const inCategory = (at.categoryId ?? null) !== null;
  // The section's end is read again only when it is needed: a page in a category is placed by it.
  if (state === undefined || (state.end === null && !inCategory)) {
    if (state === undefined) await repo.lockSection(trx, parts.dialect, projectId, documentationId);
    const section = await parts.queries.newPageSection(trx, projectId, documentationId, base);
    if (!section) throw new NotFoundError(`Documentation ${documentationId} not found.`);
    assertVersionInScope(tx.scope, section.version_id);
    const empty = section.last_page === null && section.last_category === null;
    const end = Math.max(Number(section.last_page ?? 0), Number(section.last_category ?? 0)) + 1;
    state = {
      section,
      end,
      slugs: state?.slugs ?? (empty ? new Set() : null),
      pages: state?.pages ?? new Set(),
    };
    memo.sections.set(documentationId, state);
  }
  const { section } = state;
  const placement =
    !inCategory && state.end !== null
      ? { categoryId: null, position: state.end }
      : await parts.placer.placeNew(trx, section.id, undefined, at.categoryId ?? null);
  // A placement in a category moves what follows it: the section's end is read again next time.
  state.end = placement.categoryId === null ? placement.position + 1 : null;
  const parentId = at.parentId ?? null;
  if (parentId !== null && !state.pages.has(parentId)) {
    const parent = await parts.view(trx, tx.scope, parentId);
    if (parent.documentation_id !== section.id) {
      throw new InvalidFieldError('parentId', `names a page outside documentation ${section.id}`);
    }
  }
  // Known taken when the memo knows every slug of the section; otherwise asked (pickSlug reads them).
  const taken = state.slugs !== null ? state.slugs.has(base) : await slugTaken(parts, tx, section.id, base);
  if (input.slug !== undefined && taken) throw slugConflict('page', input.slug);
  const slug = taken
    ? await pickSlug(trx, 'pages', section.id, { kind: 'page', title: input.title, fallback: 'page' })
    : base;
  const now = parts.now();
  const published = input.published !== null;
  const listed = input.listed ?? published;
  const row = await explicitSlug(input.slug, () =>
    repo.insert(trx, {
      documentation_id: section.id,
      category_id: placement.categoryId,
      parent_page_id: parentId,
      title: input.title,
      slug,
      listed: int(listed),
      content_draft: published ? input.draft : (input.draft ?? ''),
      content_published: input.published,
      position: placement.position,
      deleted_at: null,
      created: now,
      updated: now,
    }),
  );
  state.slugs?.add(slug);
  state.pages.add(row.id);
  const stored: PageView = {
    ...viewOf(row),
    version_id: section.version_id,
    documentation_slug: section.slug,
    version_slug: section.version_slug,
    variables: section.variables,
  };
  const { message } = input;
  const ids = { projectId, versionId: section.version_id };
  // As created: the contents its draft, unpublished, unlisted.
  let view: PageView = {
    ...stored,
    listed: 0,
    content_draft: input.published ?? input.draft ?? '',
    content_published: null,
  };
  let page = await parts.record(tx, view, null, 'create', message, new ChangeWrites(trx), (p) => ({
    type: 'page.created',
    ...ids,
    page: p,
    documentationId: section.id,
    categoryId: placement.categoryId,
    position: placement.position,
    message,
  }));
  if (published) {
    const created = view;
    view = { ...view, content_published: input.published, content_draft: null, listed: 1 };
    page = await parts.record(
      tx,
      view,
      created,
      'publish',
      parts.publishMessage,
      new ChangeWrites(trx),
      (p) => ({
        type: 'page.published',
        ...ids,
        page: p,
        wasListed: false,
        message: parts.publishMessage,
      }),
    );
    if (input.draft !== null) {
      const before = view;
      view = { ...view, content_draft: input.draft };
      page = await recordUpdate(parts, tx, view, before, message, ids, { contentChanged: true });
    }
  }
  if (int(listed) !== view.listed) {
    const before = view;
    view = { ...view, listed: int(listed) };
    page = await recordUpdate(parts, tx, view, before, message, ids, { contentChanged: false, listed });
  }
  return page;
}

/** An update of the page written whole, recorded as PageWriter.update records it. */
function recordUpdate(
  parts: WholePageParts,
  tx: TransactionContext,
  view: PageView,
  before: PageView,
  message: string,
  ids: { projectId: number; versionId: number },
  change: { contentChanged: boolean; listed?: boolean },
): Promise<Page> {
  return parts.record(tx, view, before, 'update', message, new ChangeWrites(tx.transaction), (p) => ({
    type: 'page.updated',
    ...ids,
    page: p,
    before: { title: view.title, slug: view.slug },
    message,
    ...change,
  }));
}

async function slugTaken(
  parts: WholePageParts,
  tx: TransactionContext,
  sectionId: number,
  slug: string,
): Promise<boolean> {
  const holder = await parts.queries.newPageSection(tx.transaction, tx.scope.project.id, sectionId, slug);
  return holder !== undefined && holder.slug_holder !== null;
}
