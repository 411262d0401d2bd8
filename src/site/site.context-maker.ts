import type { FastifyRequest } from 'fastify';
import type { ProjectView } from '../modules/readers/readers.service.ts';
import { siteHostOf } from '../shared/site-host.ts';
import type { SiteAnswer } from './site.answer.ts';
import { projectStylesheet, SiteAssets, type SiteAsset } from './site.assets.ts';
import type { SiteContext, SiteRequest } from './site.context.ts';

/** A project's canonical origin (from its `host`, or null) and its stylesheet. */
interface Derived {
  origin: string | null;
  css: SiteAsset | null;
}

/**
 * The SiteContext of a request: where it reached the site, the project's canonical root and the
 * addresses of the site's assets, with what a project's view gives every request worked out once.
 */
export class SiteContextMaker {
  readonly assets = new SiteAssets();
  private readonly derivedOf = new WeakMap<ProjectView, Derived>();

  /** The absolute root canonical addresses name: the project's host when it has one. */
  canonicalRoot(request: FastifyRequest, view: ProjectView, at: SiteRequest): string {
    const origin = this.derived(view).origin;
    return origin === null
      ? `${request.protocol}://${request.host}${at.root}`
      : `${origin}${view.project.basePath}`;
  }

  of(request: FastifyRequest, view: ProjectView, at: SiteRequest, stamp: string | null): SiteContext {
    return this.context(view, at, stamp, this.canonicalRoot(request, view, at));
  }

  context(view: ProjectView, at: SiteRequest, stamp: string | null, canonicalRoot: string): SiteContext {
    const css = this.derived(view).css;
    return {
      view,
      root: at.root,
      canonicalRoot,
      stamp,
      assets: {
        css: `${at.root}/_site/${this.assets.css.name}`,
        js: `${at.root}/_site/${this.assets.js.name}`,
        projectCss: css === null ? null : `${at.root}/_site/${css.name}`,
      },
    };
  }

  /** One of the site's own assets or the project's stylesheet, by its content-hashed name. */
  asset(site: SiteContext, name: string): SiteAnswer | null {
    const own = this.assets.get(name);
    if (own) return { status: 200, type: own.type, body: own.body, immutable: true };
    const css = this.derived(site.view).css;
    if (css !== null && css.name === name)
      return { status: 200, type: css.type, body: css.body, immutable: true };
    return null;
  }

  /** What a project's view gives every request of its site, worked out once per view. */
  private derived(view: ProjectView): Derived {
    let derived = this.derivedOf.get(view);
    if (derived === undefined) {
      const project = view.project;
      const host = siteHostOf(project.host);
      const protocol = project.host !== null && /^http:\/\//i.test(project.host.trim()) ? 'http' : 'https';
      derived = {
        origin: host === null ? null : `${protocol}://${host}`,
        css: projectStylesheet(project.color, project.css),
      };
      this.derivedOf.set(view, derived);
    }
    return derived;
  }
}
