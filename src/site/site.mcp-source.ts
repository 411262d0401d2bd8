import { NotFoundError } from '../errors.ts';
import { chooseVersion, type McpReadSource } from '../mcp/mcp.reader-tools.ts';
import type { McpHits } from '../mcp/mcp.hits.ts';
import type { PagesService } from '../modules/pages/pages.service.ts';
import type { ReaderMachine } from '../modules/readers/readers.machine.ts';
import type { Navigation } from '../modules/readers/readers.service.ts';
import type { ReferencesService } from '../modules/references/references.service.ts';
import type { SearchService } from '../modules/search/search.service.ts';
import { parseAddress, type SiteAddress } from './site.address.ts';
import { absolute, type SiteContext } from './site.context.ts';
import type { SiteHandler } from './site.handler.ts';

/** Hits one `search` call answers. */
const HITS = 10;

export interface SiteMcpDeps {
  pages: PagesService;
  search: SearchService;
  references: ReferencesService;
  machine: ReaderMachine;
  /** the hits of search answers, kept for this server's calls */
  hits: McpHits;
}

/**
 * What the reader MCP server reads (site.md, extensions.md §9): exactly what the site shows, through
 * the same services and the same navigation its pages are built from, so a tool finds nothing a
 * reader could not open at the site's addresses.
 */
export function siteMcpSource(handler: SiteHandler, site: SiteContext, deps: SiteMcpDeps): McpReadSource {
  const projectId = site.view.project.id;
  const navigation = async (slug: string | undefined): Promise<Navigation> => {
    const version = chooseVersion(site.view.versions, slug);
    const found = await handler.navigation(site, version.slug);
    if (found === null) throw new NotFoundError(`No version '${slug ?? 'latest'}' is published.`);
    return found;
  };

  return {
    async search(query, version) {
      if (version !== undefined) chooseVersion(site.view.versions, version);
      // The stamp the site read first (site.handler.ts), before anything of the answer.
      const body = await deps.search.searchJson(
        handler.readers.context(site.view.project),
        { query, hits: HITS, ...(version === undefined ? {} : { version_slug: version }) },
        site.stamp,
      );
      return deps.hits.of(body, site.canonicalRoot, (path) => absolute(site, path));
    },

    async readPage(path) {
      const address = addressOf(site, path);
      if (address.kind !== 'page' && address.kind !== 'markdown') throw noPage(path);
      const found = await navigation(address.version).catch(() => {
        throw noPage(path);
      });
      const section = found.bySlug.get(address.section);
      const row = section ? await handler.readers.readablePage(section.id, address.page) : undefined;
      if (!section || !row) throw noPage(path);
      const markdown = await deps.pages.publishedContents(projectId, row.id, 'markdown', site.stamp);
      if (markdown === null) throw noPage(path);
      const url = absolute(site, `/${found.version.slug}/${section.slug}/${row.slug}`);
      return { title: row.title, url, markdown };
    },

    async listPages(version, sectionSlug) {
      const found = await navigation(version);
      const section = sectionSlug === undefined ? null : found.bySlug.get(sectionSlug);
      if (section === undefined) {
        throw new NotFoundError(`No section '${sectionSlug ?? ''}' in version '${found.version.slug}'.`);
      }
      const descriptions = await deps.machine.descriptions(found.version.id, site.view.project.variables);
      return found.order
        .filter((page) => section === null || page.sectionId === section.id)
        .map((page) => ({
          title: page.title,
          url: absolute(site, page.path),
          description: descriptions.get(page.id) ?? null,
        }));
    },

    async operations(reference) {
      const below = belowRoot(site, reference);
      const address = addressOf(site, reference);
      const candidates =
        address.kind === 'reference'
          ? [{ version: address.version as string | undefined, slug: address.reference }]
          : site.view.versions.map((v) => ({ version: v.slug, slug: below.slice(1) }));
      for (const candidate of candidates) {
        const found = await navigation(candidate.version).catch(() => null);
        const row = found?.references.find((r) => r.slug === candidate.slug);
        if (!row) continue;
        const view = await deps.references.publishedView(projectId, row.id);
        if (view === null) continue;
        return {
          title: row.title,
          url: absolute(site, row.path),
          operations: view.groups.flatMap((g) => g.operations),
        };
      }
      throw new NotFoundError(`No API reference '${reference}' readers can see.`);
    },
  };
}

/** What a path names on the site; `latest/…` read as the same address in the default version. */
function addressOf(site: SiteContext, given: string): SiteAddress {
  const address = parseAddress(belowRoot(site, given));
  const first = site.view.versions[0];
  if (address.kind !== 'latest' || first === undefined) return address;
  return parseAddress(`/${[first.slug, ...address.rest].map(encodeURIComponent).join('/')}`);
}

const noPage = (path: string) => new NotFoundError(`No page readers can see at '${path}'.`);

/**
 * A path below the site's root (`/v1/guides/install`) from what a caller gave: that path, the path
 * with the site's root before it, or a full URL of the site; query and fragment dropped.
 */
export function belowRoot(site: Pick<SiteContext, 'root' | 'canonicalRoot'>, given: string): string {
  let path = given.trim();
  if (/^https?:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      return '/';
    }
  }
  path = path.replace(/[?#].*$/, '');
  if (!path.startsWith('/')) path = `/${path}`;
  let canonical = '';
  try {
    canonical = new URL(site.canonicalRoot).pathname.replace(/\/$/, '');
  } catch {
    canonical = '';
  }
  for (const root of [site.root, canonical]) {
    if (root !== '' && (path === root || path.startsWith(`${root}/`))) return path.slice(root.length) || '/';
  }
  return path;
}
