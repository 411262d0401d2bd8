import type { Navigation } from '../../modules/readers/readers.service.ts';
import { absolute, href, type SiteContext } from '../site.context.ts';
import { Layout } from './layout.tsx';
import { SiteNavigation } from './navigation.tsx';
import { VersionSwitcher, type SwitchTarget } from './version-switcher.tsx';

/**
 * The site's landing page: the default version's published sections with their first pages, its
 * references, and the project's changelogs.
 */
export function LandingDocument({
  site,
  navigation,
  switchTargets,
}: {
  site: SiteContext;
  navigation: Navigation | null;
  switchTargets: SwitchTarget[];
}) {
  const { project, changelogs } = site.view;
  const sections = navigation?.sections.filter((section) => section.first !== null) ?? [];
  return (
    <Layout
      site={site}
      head={{
        title: project.name,
        description: `The documentation of ${project.name}.`,
        canonical: absolute(site, '/'),
      }}
      header={
        navigation ? (
          <VersionSwitcher site={site} current={navigation.version} targets={switchTargets} />
        ) : null
      }
    >
      <div class={navigation ? 'layout no-toc' : 'layout single'}>
        {navigation ? <SiteNavigation site={site} navigation={navigation} /> : null}
        <main id="content" tabIndex={-1}>
          <h1>{project.name}</h1>
          {sections.length === 0 && changelogs.length === 0 && (navigation?.references.length ?? 0) === 0 ? (
            <p>Nothing is published here yet.</p>
          ) : null}
          {sections.length > 0 ? (
            <section aria-labelledby="landing-guides">
              <h2 id="landing-guides">Documentation</h2>
              <ul class="cards">
                {sections.map((section) => (
                  <li key={section.id}>
                    <h3>
                      <a href={href(site, section.first?.path ?? '/')}>{section.title}</a>
                    </h3>
                    <p>{section.first?.title}</p>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {navigation && navigation.references.length > 0 ? (
            <section aria-labelledby="landing-references">
              <h2 id="landing-references">API reference</h2>
              <ul class="cards">
                {navigation.references.map((reference) => (
                  <li key={reference.id}>
                    <h3>
                      <a href={href(site, reference.path)}>{reference.title}</a>
                    </h3>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {changelogs.length > 0 ? (
            <section aria-labelledby="landing-changelogs">
              <h2 id="landing-changelogs">Changelogs</h2>
              <ul class="cards">
                {changelogs.map((changelog) => (
                  <li key={changelog.id}>
                    <h3>
                      <a href={href(site, `/changelog/${encodeURIComponent(changelog.slug)}`)}>
                        {changelog.title}
                      </a>
                    </h3>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </main>
      </div>
    </Layout>
  );
}
