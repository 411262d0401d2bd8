import type { Static } from '@sinclair/typebox';
import { assertIfMatch, entityTag, refines } from '../../shared/entity-tags.ts';
import { bool } from '../../db/executor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import { JsonBytes, type Rendered } from '../../shared/serialised.ts';
import type { PageView, Source } from './pages.reads.repository.ts';
import type { PageSchema } from './pages.schemas.ts';

export type Page = Static<typeof PageSchema>;

/** What a page's answer says besides its contents, in the answer's order. */
function pageHead(view: PageView<Source>) {
  return {
    id: view.id,
    listed: bool(view.listed),
    title: view.title,
    created: formatApiDate(view.created),
    updated: formatApiDate(view.updated),
    slug: view.slug,
  };
}

const pagePath = (view: PageView<Source>): string =>
  `${view.version_slug}/${view.documentation_slug}/${view.slug}`;

/**
 * The tag of a page's stored state: everything its darkdown answer shows. An answer in another format
 * refines it with a digest of the answer (`"state.answer"`), so that If-Match on a write accepts a tag
 * read in any format, while If-None-Match compares whole answers.
 */
export function pageStateTag(view: PageView<Source>): string {
  return entityTag(
    view.id,
    view.title,
    view.slug,
    bool(view.listed),
    view.content_draft,
    view.content_published,
    pagePath(view),
    formatApiDate(view.created),
    formatApiDate(view.updated),
  );
}

/** `If-Match` against the page's stored state: a tag read in any format names that state. */
export function assertPageIfMatch(ifMatch: string | undefined, view: PageView<Source>): void {
  // Most writes send no condition: the tag, a hash of the whole page, is then not needed.
  if (ifMatch === undefined) return;
  const current = pageStateTag(view);
  assertIfMatch(ifMatch, current, (given) => refines(given, current));
}

/** The same tag, from a page as the API presents it in darkdown (a write's answer). */
export function pageTag(page: Page): string {
  return entityTag(
    page.id,
    page.title,
    page.slug,
    page.listed,
    page.contentDraft,
    page.contentPublished,
    page.path,
    page.created,
    page.updated,
  );
}

/** The contents are passed in the format asked for; the view's own are the stored Darkdown. */
export function presentPage(
  view: PageView,
  contents: { draft: string | null; published: string | null } = {
    draft: view.content_draft,
    published: view.content_published,
  },
): Page {
  return {
    ...pageHead(view),
    contentDraft: contents.draft,
    contentPublished: contents.published,
    path: pagePath(view),
  };
}

/**
 * A page's JSON answer: a string, or bytes when a content arrived as JSON bytes from a worker
 * thread, spliced in without being parsed or copied into a string.
 */
export function serialisePage(
  view: PageView<Source>,
  contents: { draft: Rendered | null; published: Rendered | null },
): string | Buffer {
  const { draft, published } = contents;
  if (!(draft instanceof JsonBytes) && !(published instanceof JsonBytes)) {
    const page: Page = {
      ...pageHead(view),
      contentDraft: draft,
      contentPublished: published,
      path: pagePath(view),
    };
    return JSON.stringify(page);
  }
  const part = (content: Rendered | null): Uint8Array =>
    content instanceof JsonBytes ? content.bytes : Buffer.from(JSON.stringify(content));
  return Buffer.concat([
    Buffer.from(`${JSON.stringify(pageHead(view)).slice(0, -1)},"contentDraft":`),
    part(draft),
    Buffer.from(',"contentPublished":'),
    part(published),
    Buffer.from(`,"path":${JSON.stringify(pagePath(view))}}`),
  ]);
}
