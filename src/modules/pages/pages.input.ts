import { BadRequestError, InvalidFieldError } from '../../errors.ts';
import { assertSlug } from '../../shared/slug.ts';
import { assertNotBlank } from '../../shared/text.ts';
import type { PageCreateInput, PageUpdateInput } from './pages.schemas.ts';

/**
 * What a page write's body must hold beyond its schema, checked before any transaction: a title
 * that is not blank, a slug of the slug alphabet, and for an update something to change and no
 * place asked twice.
 */
export function assertCreateInput(input: PageCreateInput): void {
  assertNotBlank('body.title', input.title);
  if (input.slug !== undefined) assertSlug('body.slug', input.slug);
}

export function assertUpdateInput(input: PageUpdateInput): void {
  const { message: _message, ...changes } = input;
  if (Object.values(changes).every((value) => value === undefined)) {
    throw new BadRequestError('Give at least one of title, slug, content, listed, categoryTitle, parentId.', [
      {
        field: 'body',
        message: 'must have at least one of title, slug, content, listed, categoryTitle, parentId',
      },
    ]);
  }
  if (input.categoryTitle !== undefined && input.parentId !== undefined && input.parentId !== null) {
    throw new InvalidFieldError(
      'body.parentId',
      "cannot be given with categoryTitle: a child page is in its parent's category",
    );
  }
  if (input.title !== undefined) assertNotBlank('body.title', input.title);
  if (input.slug !== undefined) assertSlug('body.slug', input.slug);
}
