import type { SearchHit } from '../modules/search/search.presenter.ts';
import type { SearchResult } from '../modules/search/search.service.ts';
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

/** Search answers whose hits are kept: a few hundred answers of ten hits, a few megabytes. */
const KEPT_ANSWERS = 500;

/**
 * The hits of a search service's answer as the tools give them. The service keeps each answer as one
 * string, and gives that same string while the project is unchanged (a change gives another), so
 * the hits made of it are kept beside it, with the root their URLs start with, rather than parsed
 * and made again for every call. The oldest are let go first. Kept hits are frozen: they are shared
 * by the calls that get them.
 */
export class McpHits {
  private readonly kept = new Map<string, { root: string; hits: readonly McpHit[] }>();

  of(body: string, root: string, url: (path: string) => string): readonly McpHit[] {
    const found = this.kept.get(body);
    if (found !== undefined && found.root === root) return found.hits;
    const hits = Object.freeze(
      (JSON.parse(body) as SearchResult).hits.map((hit) => Object.freeze(mcpHit(hit, url))),
    );
    if (found === undefined && this.kept.size >= KEPT_ANSWERS) {
      const oldest = this.kept.keys().next();
      if (oldest.done !== true) this.kept.delete(oldest.value);
    }
    this.kept.set(body, { root, hits });
    return hits;
  }
}
