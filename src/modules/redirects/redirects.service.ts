import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import {
  parseRedirectRules,
  redirectTarget,
  RedirectRuleError,
  type RedirectRule,
} from '../../shared/redirect-rules.ts';
import { redirectsRepository as repo, type PageAddressRow } from './redirects.repository.ts';

/** What a former address names now: slugs and ids as they stand (none of it checked for readers). */
export type CurrentAddress =
  | { kind: 'version'; versionId: number; versionSlug: string }
  | { kind: 'section'; versionId: number; versionSlug: string; sectionId: number; sectionSlug: string }
  | ({ kind: 'page' } & PageAddress);

export interface PageAddress {
  versionId: number;
  versionSlug: string;
  sectionId: number;
  sectionSlug: string;
  pageId: number;
  pageSlug: string;
}

const pageAddress = (row: PageAddressRow): PageAddress => ({
  versionId: row.version_id,
  versionSlug: row.version_slug,
  sectionId: row.section_id,
  sectionSlug: row.section_slug,
  pageId: row.page_id,
  pageSlug: row.page_slug,
});

interface KeptRules {
  text: string;
  rules: RedirectRule[];
}

/**
 * The reader site's redirects (site.md §2): where a page, a section or a version named by slugs it
 * had is now, and where a project's own rules send a path. Whether readers may see the answer is
 * the site's to check, through the readers service, as for every address.
 */
export class RedirectsService {
  private readonly rules = new LruCache<KeptRules>(1_000, 32 * 1024 * 1024, (kept) => kept.text.length * 4);

  constructor(private readonly reader: Kysely<Database>) {}

  /**
   * What `/{version}/{section?}/{page?}` of a project names now, by current or former slugs at
   * every level (the holder of a slug first); null when some level names nothing.
   */
  async current(projectId: number, slugs: readonly string[]): Promise<CurrentAddress | null> {
    const [versionSlug, sectionSlug, pageSlug] = slugs;
    if (versionSlug === undefined) return null;
    const versionId = await repo.named(this.reader, 'version', projectId, versionSlug);
    if (versionId === null) return null;
    if (sectionSlug === undefined) {
      const slug = await repo.versionSlug(this.reader, versionId);
      return slug === null ? null : { kind: 'version', versionId, versionSlug: slug };
    }
    const sectionId = await repo.named(this.reader, 'section', versionId, sectionSlug);
    if (sectionId === null) return null;
    if (pageSlug === undefined) {
      const row = await repo.sectionAddress(this.reader, sectionId);
      if (row === undefined) return null;
      return {
        kind: 'section',
        versionId: row.version_id,
        versionSlug: row.version_slug,
        sectionId: row.section_id,
        sectionSlug: row.section_slug,
      };
    }
    const pageId = await repo.named(this.reader, 'page', sectionId, pageSlug);
    const row = pageId === null ? undefined : await repo.pageAddress(this.reader, pageId);
    return row === undefined ? null : { kind: 'page', ...pageAddress(row) };
  }

  /**
   * Where the project's rules send `path` (below the site's root), or null. The rules are compiled
   * once per text; a text that no longer parses (kept before a limit changed) sends nothing.
   */
  ruleTarget(projectId: number, text: string | null, path: string): string | null {
    if (text === null) return null;
    const key = String(projectId);
    let kept = this.rules.get(key);
    if (kept === undefined || kept.text !== text) {
      kept = { text, rules: compiled(text) };
      this.rules.set(key, kept);
    }
    return redirectTarget(kept.rules, path);
  }
}

function compiled(text: string): RedirectRule[] {
  try {
    return parseRedirectRules(text);
  } catch (error) {
    if (error instanceof RedirectRuleError) return [];
    throw error;
  }
}
