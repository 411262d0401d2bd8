import MarkdownItConstructor, { type MarkdownIt } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import { OPTIONS } from './sanitiser.ts';

/**
 * Descriptions in OpenAPI documents are CommonMark (GitHub's tables and strikethrough too), not
 * Darkdown: markdown-it as it comes, raw HTML allowed because CommonMark allows it, the result passed
 * through the same allowlist as every HTML Quire gives. The allowlist's `id` and `name` attributes
 * are dropped here: a description shares its page with the operations' anchors, and must not claim
 * one of them.
 */
const WITHOUT_IDS: sanitizeHtml.IOptions = {
  ...OPTIONS,
  allowedAttributes: Object.fromEntries(
    Object.entries(OPTIONS.allowedAttributes || {}).map(([tag, attributes]) => [
      tag,
      attributes.filter((a) => (typeof a === 'string' ? a !== 'id' && a !== 'name' : true)),
    ]),
  ),
};

/** Longer descriptions are cut here, before they are read: rendering stays bounded in time. */
export const MAX_DESCRIPTION_CHARS = 16_000;

let parser: MarkdownIt | undefined;

/** A description's Markdown as sanitised HTML ('' for none). */
export function descriptionHtml(markdown: string): string {
  const source =
    markdown.length > MAX_DESCRIPTION_CHARS ? `${markdown.slice(0, MAX_DESCRIPTION_CHARS)}…` : markdown;
  if (source.trim() === '') return '';
  parser ??= new MarkdownItConstructor({ html: true, linkify: false, typographer: false });
  return sanitizeHtml(parser.render(source), WITHOUT_IDS);
}
