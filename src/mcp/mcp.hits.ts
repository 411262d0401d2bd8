import type { SearchHit } from '../modules/search/search.presenter.ts';
import type { McpHit } from './mcp.reader-tools.ts';

const SNIPPET_CHARS = 200;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };

/**
 * A hit of the search service as the tools give it: its title as the site shows it, its address, and
 * the text around the first match (the service's highlight, its marks and escapes taken out).
 */
export function mcpHit(hit: SearchHit, url: (path: string) => string): McpHit {
  const around = hit.highlight.content
    .replace(/<\/?mark>/g, '')
    .replace(/&(?:amp|lt|gt|quot);/g, (entity) => ENTITIES[entity] ?? entity)
    .trim();
  const snippet = around === '' ? hit.content.slice(0, SNIPPET_CHARS) : around;
  return { title: hit.title === '' ? hit.page : hit.title, url: url(hit.path), snippet };
}
