import { renderHtml } from './html-renderer.ts';
import { renderMarkdoc } from './markdoc-renderer.ts';
import { renderMarkdown } from './markdown-renderer.ts';
import { renderText } from './text-renderer.ts';
import type { ContentFormat, RenderContext } from './types.ts';

export { autoLinkTargets } from './auto-links.ts';
export { ContentError } from './content-error.ts';
export { headingAnchor } from './heading-anchor.ts';
export {
  parsePageFile,
  writeIndexEntryFile,
  writePageFile,
  type PageFile,
  type PageFileOptions,
} from './page-file.ts';
export { extractSections, type ContentSection } from './sections.ts';
export type { ContentFormat, MarkdocLinks, RenderContext } from './types.ts';
export { renderHtml, renderMarkdoc, renderMarkdown, renderText };

/** Content in the format a caller asked for; `darkdown` is the stored source, byte for byte. */
export function renderContent(
  source: string | null,
  format: ContentFormat,
  ctx?: RenderContext,
): string | null {
  if (source === null) return null;
  switch (format) {
    case 'darkdown':
      return source;
    case 'html':
      return renderHtml(source, ctx);
    case 'markdown':
      return renderMarkdown(source, ctx);
    case 'text':
      return renderText(source, ctx);
    case 'markdoc':
      return renderMarkdoc(source, ctx?.markdoc);
  }
}
