import { bool } from '../../db/executor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { PageView } from './pages.repository.ts';

export interface Page {
  id: number;
  listed: boolean;
  title: string;
  created: string;
  updated: string;
  slug: string;
  contentDraft: string | null;
  contentPublished: string | null;
  path: string;
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
    id: view.id,
    listed: bool(view.listed),
    title: view.title,
    created: formatApiDate(view.created),
    updated: formatApiDate(view.updated),
    slug: view.slug,
    contentDraft: contents.draft,
    contentPublished: contents.published,
    path: `${view.version_slug}/${view.documentation_slug}/${view.slug}`,
  };
}
