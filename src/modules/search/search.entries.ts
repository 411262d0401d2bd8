import type { Insertable } from 'kysely';
import { extractSections, type ContentSection } from '../../content/sections.ts';
import type { SearchEntriesTable } from '../../db/schema.ts';
import { parseVariables } from '../../shared/serialised.ts';
import { TurnBudget } from '../../shared/turns.ts';
import type { VisiblePage, VisiblePost } from './search.index.repository.ts';

// The entries derived from what readers can see (read by search.index.repository.ts): one per H2
// section of a page or a changelog post. SearchIndexer derives the operations of references (it may
// read them in a thread) and writes the entries.

export type Entry = Insertable<SearchEntriesTable>;

/**
 * Text for the index: without the control characters the engines' highlights are marked with, and
 * without NUL, which a page can carry only escaped (`\u0000` in a plugin's JSON) but which the
 * derived text then holds as it is, and which PostgreSQL refuses in text.
 */
export const withoutMarks = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/[\u0000-\u0002]/g, (c) => (c === '\u0000' ? '' : ' '));

/**
 * What a text's entries say: its title with the text before its first H2, then one per H2 section,
 * in the order they come.
 */
function sectionsOf(
  content: string,
  title: string,
  variables: string,
  read?: ContentSection[],
): Array<Pick<Entry, 'fragment' | 'title' | 'content' | 'ordr'>> {
  const sections = read ?? extractSections(content, { variables: parseVariables(variables) });
  if (sections[0]?.heading !== null) sections.unshift({ heading: null, anchor: null, text: '' });
  return sections.map((section, ordr) => ({
    fragment: section.anchor ?? '',
    title: withoutMarks(section.heading ?? title),
    content: withoutMarks(section.text),
    ordr,
  }));
}

/** A page's entries: one per section of its published contents (`read`: those sections, read elsewhere). */
export function pageEntries(page: VisiblePage, read?: ContentSection[]): Entry[] {
  return sectionsOf(page.content_published ?? '', page.title, page.variables, read).map((section) => ({
    project_id: page.project_id,
    version_id: page.version_id,
    documentation_id: page.documentation_id,
    page_id: page.id,
    reference_id: null,
    section_type: 'doc',
    version_slug: page.version_slug,
    section: page.section,
    page: page.slug,
    ...section,
  }));
}

/** A post's entries: one per section, like a page's. */
export function postEntries(post: VisiblePost): Entry[] {
  return sectionsOf(post.content, post.title, post.variables).map((section) => ({
    project_id: post.project_id,
    version_id: null,
    documentation_id: null,
    page_id: null,
    reference_id: null,
    changelog_post_id: post.id,
    section_type: 'changelog',
    version_slug: null,
    section: post.changelog,
    page: post.slug,
    ...section,
  }));
}

/**
 * Pages (or posts) are read until a turn's budget is spent before the event loop gets a turn (a
 * version may have thousands; 25 pages of a few KB took up to 75 ms on a loaded machine).
 */
export async function entriesOf<T>(
  texts: readonly T[],
  entriesOfOne: (text: T) => Entry[],
): Promise<Entry[]> {
  const entries: Entry[] = [];
  const turns = new TurnBudget();
  for (const text of texts) {
    entries.push(...entriesOfOne(text));
    await turns.pass();
  }
  return entries;
}

/**
 * How the sections of a large text are read elsewhere than on the event loop (a worker thread): a
 * page of megabytes takes the parser seconds.
 */
export type LargeSections = (
  content: string,
  variables: Readonly<Record<string, unknown>>,
) => Promise<ContentSection[]>;

/** Texts from this many characters on are read by LargeSections, when there is one. */
export const LARGE_SECTIONS_CHARS = 64 * 1024;

export async function entriesOfPages(pages: readonly VisiblePage[], large?: LargeSections): Promise<Entry[]> {
  if (large === undefined) return entriesOf(pages, pageEntries);
  const entries: Entry[] = [];
  const turns = new TurnBudget();
  for (const page of pages) {
    const content = page.content_published ?? '';
    if (content.length >= LARGE_SECTIONS_CHARS) {
      entries.push(...pageEntries(page, await large(content, parseVariables(page.variables))));
      continue;
    }
    entries.push(...pageEntries(page));
    await turns.pass();
  }
  return entries;
}
