import type { Kysely } from 'kysely';
import { systemActor, type UseCaseContext } from '../../auth/actor.ts';
import type { Database } from '../../db/schema.ts';
import { LruCache } from '../../shared/lru-cache.ts';
import { normaliseBasePath } from '../../shared/site-host.ts';
import { buildNavigation, type Navigation } from './readers.navigation.ts';
import {
  readersRepository as repo,
  type ReadablePageRow,
  type ReaderReferenceRow,
  type ReaderVersionRow,
  type SiteProjectRow,
} from './readers.repository.ts';

export type { Navigation, NavItem, NavPage, NavSection } from './readers.navigation.ts';
export type { ReadablePageRow, ReaderReferenceRow, ReaderVersionRow, SiteProjectRow };

/** A project's site settings, as the site reads them. */
export interface SiteProject {
  id: number;
  name: string;
  access: 'public' | 'invite';
  /** the `host` setting, a URL or a host name, or null */
  host: string | null;
  /** `''` for the root, else `/a/b` */
  basePath: string;
  logo: string | null;
  color: string | null;
  css: string | null;
  redirects: string | null;
  variables: string;
}

/** What a project's readers see of it that does not depend on the address: kept per change stamp. */
export interface ProjectView {
  project: SiteProject;
  /** published versions; the first is the default */
  versions: ReaderVersionRow[];
  changelogs: Array<{ id: number; title: string; slug: string }>;
}

interface Kept<T> {
  stamp: string;
  value: T;
}

/** A navigation kept under the project's stamp it was last found current at, and its version's counter. */
interface KeptNavigation extends Kept<Navigation> {
  navigationStamp: string;
}

/**
 * What readers of a project can see, for the reader site (docs/decisions/0027-reader-site.md): the
 * same visibility fragments as the API's published listing and search (decision 0023). What every
 * request of a site needs (the project, its versions, a version's navigation) is built once per
 * change of the project, under its change stamp (src/db/change-stamps.ts), never per request.
 */
export class ReadersService {
  private readonly views = new LruCache<Kept<ProjectView>>(1_000, 8 * 1024 * 1024, () => 1_000);
  private readonly navigations = new LruCache<KeptNavigation>(
    2_000,
    64 * 1024 * 1024,
    (kept) => kept.value.weight,
  );

  constructor(
    private readonly reader: Kysely<Database>,
    /** the project's change stamp as committed now, or null when it cannot be read (no caching) */
    private readonly stamps: (projectId: number) => Promise<string | null>,
  ) {}

  /** The change stamp the rest of a request's reads are kept under. */
  stamp(projectId: number): Promise<string | null> {
    return this.stamps(projectId);
  }

  /** Projects whose `host` is this request host (lower-case, with port), with their base paths. */
  async sitesOnHost(host: string): Promise<Array<{ id: number; basePath: string }>> {
    const rows = await repo.projectsOnHost(this.reader, host.toLowerCase());
    return rows.map((row) => ({ id: row.id, basePath: normaliseBasePath(row.base_path) }));
  }

  /** The project with its published versions and changelogs; null when there is no such project. */
  async view(projectId: number, stamp: string | null): Promise<ProjectView | null> {
    const key = String(projectId);
    const kept = stamp === null ? undefined : this.views.get(key);
    if (kept && kept.stamp === stamp) return kept.value;
    const row = await repo.project(this.reader, projectId);
    if (!row) return null;
    const value: ProjectView = {
      project: siteProject(row),
      versions: await repo.versions(this.reader, projectId),
      changelogs: await repo.changelogs(this.reader, projectId),
    };
    if (stamp !== null) this.views.set(key, { stamp, value });
    return value;
  }

  /**
   * The navigation of a published version: found current under the project's stamp in a lookup;
   * after a change of the project, current still when the version's navigation counter has not moved
   * (a page's new contents), else built again: once per change of what it is made of.
   */
  async navigation(projectId: number, version: ReaderVersionRow, stamp: string | null): Promise<Navigation> {
    const key = `${projectId}:${version.id}`;
    const kept = stamp === null ? undefined : this.navigations.get(key);
    if (kept && kept.stamp === stamp) return kept.value;
    // Read before the navigation is: a change committing in between makes the next read build again.
    const navigationStamp = await repo.navigationStamp(this.reader, version.id);
    if (kept && kept.navigationStamp === navigationStamp && stamp !== null) {
      // The version row itself (name, slug) comes from the project's view, read under the new stamp.
      if (kept.value.version.name === version.name && kept.value.version.slug === version.slug) {
        this.navigations.set(key, { ...kept, stamp });
        return kept.value;
      }
    }
    const [sections, categories, pages, references] = [
      await repo.sections(this.reader, version.id),
      await repo.categories(this.reader, version.id),
      await repo.pages(this.reader, version.id),
      await repo.references(this.reader, version.id),
    ];
    const value = buildNavigation(version, sections, categories, pages, references);
    if (stamp !== null) this.navigations.set(key, { stamp, navigationStamp, value });
    return value;
  }

  /** A page readers can open (listed or not) in a section of the navigation; undefined when none. */
  readablePage(sectionId: number, slug: string): Promise<ReadablePageRow | undefined> {
    return repo.readablePage(this.reader, sectionId, slug);
  }

  /** When the page's contents were last published, or null when no revision says. */
  lastPublished(pageId: number): Promise<string | null> {
    return repo.lastPublished(this.reader, pageId);
  }

  /** A context for the services the site reads through (search): the project, every version, no key. */
  context(project: SiteProject): UseCaseContext {
    return {
      scope: {
        project: {
          id: project.id,
          name: project.name,
          plan: 'free',
          access: project.access,
          basePath: project.basePath === '' ? null : project.basePath,
          host: project.host,
        },
        versions: null,
      },
      actor: systemActor('site'),
      ipAddress: null,
    };
  }
}

function siteProject(row: SiteProjectRow): SiteProject {
  return {
    id: row.id,
    name: row.name,
    access: row.access,
    host: row.host,
    basePath: normaliseBasePath(row.base_path),
    logo: row.site_logo,
    color: row.site_color,
    css: row.site_css,
    redirects: row.site_redirects,
    variables: row.variables,
  };
}
