import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { OperationView } from '../openapi/reference-view.types.ts';
import { NotFoundError } from '../errors.ts';
import { slugify } from '../shared/slug.ts';
import { jsonResult, toolCall, type ToolFailure } from './mcp.results.ts';
import type { CallerOf } from './mcp.transport.ts';

/** A search hit as the tools give it: where it is, as a reader would open it. */
export interface McpHit {
  title: string;
  url: string;
  snippet: string;
}

/** A page as `read_page` gives it. */
export interface McpPage {
  title: string;
  url: string;
  markdown: string;
  /** the writer's answer for a page with an unpublished draft: which contents `markdown` holds */
  contents?: 'draft' | 'published';
}

export interface McpListedPage {
  title: string;
  url: string;
  description: string | null;
}

/**
 * What the reader tools read through: the reader site's visibility (src/site/site.mcp-source.ts) or
 * an API key's (src/mcp/mcp.key-source.ts). Each throws an AppError for what the caller cannot have.
 */
export interface McpReadSource {
  search(query: string, version: string | undefined): Promise<readonly McpHit[]>;
  readPage(path: string): Promise<McpPage>;
  listPages(version: string | undefined, section: string | undefined): Promise<McpListedPage[]>;
  /** The operations of a reference readers can see, by its slug, site path or URL. */
  operations(reference: string): Promise<{ title: string; url: string; operations: OperationView[] }>;
}

const Slug = z.string().min(1).max(100);

/** Input schemas: closed objects, so a misspelt argument is named rather than ignored. */
export const ReaderInputs = {
  search: z.strictObject({
    query: z.string().trim().min(1, 'query must not be empty').max(1000),
    version: Slug.optional(),
  }),
  read_page: z.strictObject({ path: z.string().min(1).max(2048) }),
  list_pages: z.strictObject({ version: Slug.optional(), section: Slug.optional() }),
  get_operation: z.strictObject({
    reference: z.string().min(1).max(2048),
    operation: z.string().trim().min(1).max(2048),
  }),
};

/** Whom a reader tool answers: what it reads through, and how its failures are answered. */
export interface ReaderCaller {
  source: McpReadSource;
  failed: ToolFailure;
}

/**
 * Search results by their hits: kept hits (src/mcp/mcp.hits.ts) are the same array while their
 * answer is, and their result, serialised once, is given again rather than made for each call.
 */
const searchResults = new WeakMap<readonly McpHit[], CallToolResult>();

function searchResult(hits: readonly McpHit[]): CallToolResult {
  let result = searchResults.get(hits);
  if (result === undefined) {
    result = jsonResult({ hits });
    searchResults.set(hits, result);
  }
  return result;
}

/** Registers search, read_page, list_pages and get_operation, each over its caller's source. */
export function registerReaderTools(server: McpServer, callerOf: CallerOf<ReaderCaller>): void {
  server.registerTool(
    'search',
    {
      description:
        'Search the documentation. Answers hits with their title, URL and a snippet of text, best first.',
      inputSchema: ReaderInputs.search,
      annotations: { readOnlyHint: true },
    },
    ({ query, version }, extra) => {
      const { source, failed } = callerOf(extra);
      return toolCall(failed, async () => searchResult(await source.search(query, version)));
    },
  );
  server.registerTool(
    'read_page',
    {
      description:
        'A page as Markdown, with its title and URL. `path` is a site path such as /v1/guides/install, or the full URL a search hit gives.',
      inputSchema: ReaderInputs.read_page,
      annotations: { readOnlyHint: true },
    },
    ({ path }, extra) => {
      const { source, failed } = callerOf(extra);
      return toolCall(failed, async () => {
        const page = await source.readPage(path);
        return {
          content: [{ type: 'text', text: `# ${page.title}\n\nURL: ${page.url}\n\n${page.markdown}` }],
          structuredContent: { ...page },
        };
      });
    },
  );
  server.registerTool(
    'list_pages',
    {
      description:
        'The pages readers find in the navigation, with title, URL and description; optionally of one version (slug) and one section (slug). Without a version: the default version.',
      inputSchema: ReaderInputs.list_pages,
      annotations: { readOnlyHint: true },
    },
    ({ version, section }, extra) => {
      const { source, failed } = callerOf(extra);
      return toolCall(failed, async () => jsonResult({ pages: await source.listPages(version, section) }));
    },
  );
  server.registerTool(
    'get_operation',
    {
      description:
        'One operation of an API reference, with its parameters, request body and responses and their schemas, as JSON. `reference`: the reference slug, its site path (/v1/ref/petstore) or URL; `operation`: `METHOD /path`, the operation id, or the anchor of a search hit.',
      inputSchema: ReaderInputs.get_operation,
      annotations: { readOnlyHint: true },
    },
    ({ reference, operation }, extra) => {
      const { source, failed } = callerOf(extra);
      return toolCall(failed, async () => {
        const found = await source.operations(reference);
        const chosen = chooseOperation(found.operations, operation);
        if (chosen === null) {
          return failed.refuse(
            `No operation '${operation}' in the reference '${found.title}'. Give it as METHOD /path (for example GET /pets), or as its operation id.`,
          );
        }
        const { curl: _curl, fragment, ...described } = chosen;
        return jsonResult({ reference: found.title, url: `${found.url}#${fragment}`, ...described });
      });
    },
  );
}

const METHOD_PATH = /^([A-Za-z]+)\s+(\/\S*)$/;

/** `METHOD /path`, an operation id, or an anchor (a search hit's fragment, with or without `#`). */
export function chooseOperation(operations: readonly OperationView[], asked: string): OperationView | null {
  const given = asked.includes('#') ? asked.slice(asked.lastIndexOf('#') + 1) : asked;
  const byPath = METHOD_PATH.exec(given);
  if (byPath) {
    const method = byPath[1]?.toUpperCase();
    return operations.find((o) => o.method === method && o.path === byPath[2]) ?? null;
  }
  return (
    operations.find((o) => o.fragment === given) ??
    operations.find((o) => o.fragment === slugify(given, 'operation')) ??
    null
  );
}

/** The version a tool names by slug (`latest` or none: the first, the default), among those given. */
export function chooseVersion<V extends { slug: string }>(
  versions: readonly V[],
  slug: string | undefined,
): V {
  const found = slug === undefined || slug === 'latest' ? versions[0] : versions.find((v) => v.slug === slug);
  if (found === undefined) {
    throw new NotFoundError(
      slug === undefined ? 'No version is published yet.' : `No version '${slug}' is published.`,
    );
  }
  return found;
}
