import { assertVersionInScope, type Scope } from '../../auth/actor.ts';
import type { Executor } from '../../db/executor.ts';
import { InvalidFieldError, NotFoundError } from '../../errors.ts';
import type { DocumentationService } from '../documentation/documentation.service.ts';
import { pagesRepository as repo } from './pages.repository.ts';

/** Where a page goes, for callers inside Quire (an import) that know the rows already. */
export interface PagePlacement {
  /** the category it joins, placed after the category's last page; null or absent: the end of the index */
  categoryId?: number | null;
  /** the page it is a child of, in the same section */
  parentId?: number | null;
}

export interface Placement {
  categoryId: number | null;
  position: number;
}

export interface MoveTarget {
  /** into this category of the section (case-insensitive), after its last page */
  categoryTitle?: string | undefined;
  /** under this page of the section (last among its children); null: back to the top level */
  parentId?: number | null | undefined;
}

const foldCase = (text: string): string => text.normalize('NFC').trim().toLocaleLowerCase('und');

/**
 * Where pages stand in a section's index. Categories and pages share one sequence of positions; the
 * pages after a category up to the next belong to it, and a page's children are listed under it in
 * position order. Every placement keeps positions distinct, making room by moving later entries down.
 */
export class PagePlacer {
  constructor(private readonly documentation: DocumentationService) {}

  /**
   * Where a new page goes: after the named category's last page (or right after the category), moving
   * later entries down; otherwise at the end.
   */
  async placeNew(
    db: Executor,
    documentationId: number,
    categoryTitle: string | undefined,
    categoryId: number | null,
  ): Promise<Placement> {
    if (categoryId !== null) {
      const category = (await repo.categories(db, documentationId)).find((c) => c.id === categoryId);
      if (!category)
        throw new InvalidFieldError('categoryId', `names no category of documentation ${documentationId}`);
      return this.afterCategory(db, documentationId, category);
    }
    if (categoryTitle === undefined) {
      return { categoryId: null, position: await this.documentation.nextPosition(db, documentationId) };
    }
    return this.afterCategory(db, documentationId, await this.category(db, documentationId, categoryTitle));
  }

  /**
   * Moves a page, its children with it: into a category, or under another page of the section (never
   * under itself or one of its own descendants), or back to the top level. Returns where it went.
   */
  async move(
    db: Executor,
    scope: Scope,
    page: { id: number; documentation_id: number },
    target: MoveTarget,
  ): Promise<{ categoryId: number | null; parentId: number | null }> {
    const sectionId = page.documentation_id;
    const current = await repo.placementOf(db, page.id);
    if (current === undefined) throw new NotFoundError(`Page ${page.id} not found.`);
    let parentId = target.parentId === undefined ? current.parent_page_id : target.parentId;
    let categoryId = current.category_id;
    let position = current.position;
    if (target.parentId !== undefined && target.parentId !== null) {
      const parent = await repo.placementOf(db, target.parentId);
      if (parent === undefined || parent.deleted_at !== null) {
        throw new InvalidFieldError('body.parentId', `names no page (${target.parentId})`);
      }
      assertVersionInScope(scope, parent.version_id);
      if (parent.documentation_id !== sectionId) {
        throw new InvalidFieldError('body.parentId', `names a page of another documentation section`);
      }
      for (
        let at: number | null = parent.id;
        at !== null;
        at = (await repo.placementOf(db, at))?.parent_page_id ?? null
      ) {
        if (at === page.id) {
          throw new InvalidFieldError('body.parentId', 'would make the page its own ancestor');
        }
      }
      parentId = parent.id;
      categoryId = parent.category_id;
      position = await this.documentation.nextPosition(db, sectionId);
    } else if (target.categoryTitle !== undefined) {
      const placed = await this.afterCategory(
        db,
        sectionId,
        await this.category(db, sectionId, target.categoryTitle),
      );
      categoryId = placed.categoryId;
      position = placed.position;
      parentId = null;
    }
    await repo.place(db, page.id, { category_id: categoryId, parent_page_id: parentId, position });
    // Children stand in their parent's category.
    for (let level = [page.id]; level.length > 0;) {
      level = await repo.childrenOf(db, sectionId, level);
      if (level.length > 0) await repo.setCategory(db, level, categoryId);
    }
    return { categoryId, parentId };
  }

  private async category(
    db: Executor,
    documentationId: number,
    title: string,
  ): Promise<{ id: number; position: number }> {
    const wanted = foldCase(title);
    const category = (await repo.categories(db, documentationId)).find((c) => foldCase(c.title) === wanted);
    if (!category) {
      throw new InvalidFieldError(
        'body.categoryTitle',
        `matches no category of documentation ${documentationId}`,
      );
    }
    return category;
  }

  private async afterCategory(
    db: Executor,
    documentationId: number,
    category: { id: number; position: number },
  ): Promise<{ categoryId: number; position: number }> {
    const last = await repo.lastPositionInCategory(db, documentationId, category.id);
    const position = (last ?? category.position) + 1;
    await repo.shiftFrom(db, documentationId, position);
    return { categoryId: category.id, position };
  }
}
