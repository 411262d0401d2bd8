import type { Navigation, NavPage } from '../../modules/readers/readers.service.ts';
import { href, type SiteContext } from '../site.context.ts';

interface NavProps {
  site: SiteContext;
  navigation: Navigation;
  /** the page shown, marked `aria-current="page"` */
  currentId?: number;
  /** the reference shown */
  currentPath?: string;
  /** the section shown open (the current page's, listed or not) */
  sectionId?: number;
}

/**
 * A version's navigation: its sections, the current page's section open (categories as groups,
 * sub-pages nested), the others as links to their first pages; then the references.
 */
export function SiteNavigation({ site, navigation, currentId, currentPath, sectionId }: NavProps) {
  const currentSection =
    sectionId ?? (currentId === undefined ? undefined : navigation.byId.get(currentId)?.sectionId);
  return (
    <>
      {/* On narrow screens the navigation waits behind this disclosure, above the content: a plain
          <details>, so it opens without script. The navigation follows it rather than sitting in it,
          so that wide screens show it whatever the disclosure's state (site.css). */}
      <details class="nav-toggle">
        <summary>Menu</summary>
      </details>
      <Sidebar
        site={site}
        navigation={navigation}
        currentId={currentId}
        currentPath={currentPath}
        currentSection={currentSection}
      />
    </>
  );
}

function Sidebar({
  site,
  navigation,
  currentId,
  currentPath,
  currentSection,
}: Omit<NavProps, 'sectionId'> & { currentSection: number | undefined }) {
  return (
    <aside class="sidebar" aria-label="Sections and pages">
      <nav aria-label="Documentation">
        {navigation.sections
          .filter((section) => section.first !== null)
          .map((section) =>
            section.id === currentSection ? (
              <section key={section.id}>
                <h2>{section.title}</h2>
                <ul>
                  {section.items.map((item) =>
                    item.kind === 'page' ? (
                      <PageItem key={`p${item.page.id}`} site={site} page={item.page} currentId={currentId} />
                    ) : (
                      <li key={`c${item.id}`}>
                        <p class="category">{item.title}</p>
                        <ul>
                          {item.pages.map((page) => (
                            <PageItem key={page.id} site={site} page={page} currentId={currentId} />
                          ))}
                        </ul>
                      </li>
                    ),
                  )}
                </ul>
              </section>
            ) : (
              // Other sections are their first page's link: a page costs what its own section
              // holds, however many sections the version has.
              <h2 key={section.id} class="section-link">
                <a href={href(site, section.first?.path ?? '/')}>{section.title}</a>
              </h2>
            ),
          )}
        {navigation.references.length > 0 ? (
          <section>
            <h2>API reference</h2>
            <ul>
              {navigation.references.map((reference) => (
                <li key={reference.id}>
                  <a
                    href={href(site, reference.path)}
                    aria-current={currentPath === reference.path ? 'page' : undefined}
                  >
                    {reference.title}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </nav>
    </aside>
  );
}

function PageItem({
  site,
  page,
  currentId,
}: {
  site: SiteContext;
  page: NavPage;
  currentId: number | undefined;
}) {
  return (
    <li>
      <a href={href(site, page.path)} aria-current={page.id === currentId ? 'page' : undefined}>
        {page.title}
      </a>
      {page.children.length > 0 ? (
        <ul>
          {page.children.map((child) => (
            <PageItem key={child.id} site={site} page={child} currentId={currentId} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}
