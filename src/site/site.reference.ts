import type { Navigation } from '../modules/readers/readers.service.ts';
import type { ReferenceView } from '../openapi/reference-view.types.ts';
import type { ReferencesService } from '../modules/references/references.service.ts';
import type { AddressHandler, SiteHandler } from './site.handler.ts';
import { describe } from './site.content.ts';
import { absolute, type SiteContext } from './site.context.ts';
import { htmlPart } from './site.html.ts';
import {
  ReferenceDocument,
  ReferenceOperations,
  ReferenceToc,
  type ReferenceParts,
} from './templates/reference.tsx';
import type { SwitchTarget } from './templates/version-switcher.tsx';

/**
 * `{site}/{version}/ref/{reference}` (site.md §4): a reference readers can see, found in its version's
 * navigation (published version, published reference with a published definition), shown from its
 * published definition through the references service. Anything else is the site's not-found page.
 * The handler keeps the answer under the project's change stamp; the service keeps the view of a
 * definition until the definition changes, and this its operations written out as HTML (the most
 * of the page, seconds for thousands of operations) as long as the service keeps the view: a change
 * elsewhere in the project writes the navigation and the layout again, not the operations.
 */
export function referencePages(handler: SiteHandler, references: ReferencesService): AddressHandler {
  const written = new WeakMap<ReferenceView, ReferenceParts>();
  const partsOf = (view: ReferenceView): ReferenceParts => {
    let parts = written.get(view);
    if (parts === undefined) {
      parts = { operations: htmlPart(ReferenceOperations({ view })), toc: htmlPart(ReferenceToc({ view })) };
      written.set(view, parts);
    }
    return parts;
  };
  return async ({ site }, address) => {
    if (address.kind !== 'reference') return null;
    const navigation = await handler.navigation(site, address.version);
    const reference = navigation?.references.find((r) => r.slug === address.reference);
    if (!navigation || !reference) return null;
    const view = await references.publishedView(site.view.project.id, reference.id);
    if (view === null) return null;
    return handler.html(
      ReferenceDocument({
        site,
        navigation,
        reference,
        view,
        parts: partsOf(view),
        description: describe(view.description, `The API reference of ${reference.title}.`),
        switchTargets: await switchTargets(handler, site, navigation, reference.slug),
        canonical: absolute(site, reference.path),
      }),
    );
  };
}

/** Every published version, at the same reference where it has one, else at its landing. */
async function switchTargets(
  handler: SiteHandler,
  site: SiteContext,
  current: Navigation,
  slug: string,
): Promise<SwitchTarget[]> {
  if (site.view.versions.length < 2) return [];
  const targets: SwitchTarget[] = [];
  for (const version of site.view.versions) {
    const navigation =
      version.id === current.version.id ? current : await handler.navigation(site, version.slug);
    const same = navigation?.references.some((r) => r.slug === slug) ?? false;
    targets.push({ version, path: same ? `/${version.slug}/ref/${slug}` : `/${version.slug}` });
  }
  return targets;
}
