import type { ReferenceView } from '../../openapi/reference-view.types.ts';
import type { Navigation } from '../../modules/readers/readers.service.ts';
import { href, type SiteContext } from '../site.context.ts';
import { Layout } from './layout.tsx';
import { SiteNavigation } from './navigation.tsx';
import { Operation } from './reference-operation.tsx';
import { Description } from './reference-schema.tsx';
import { VersionSwitcher, type SwitchTarget } from './version-switcher.tsx';

export interface ReferenceProps {
  site: SiteContext;
  navigation: Navigation;
  /** the reference as the navigation lists it: its title and its address below the site's root */
  reference: { title: string; path: string };
  view: ReferenceView;
  /** the view's operations and table of contents, rendered once per view (referenceParts) */
  parts: ReferenceParts;
  description: string;
  switchTargets: SwitchTarget[];
  canonical: string;
}

/** Past this many operations the table of contents lists the groups only. */
const TOC_OPERATIONS = 200;

/** An API reference (the specification's site.md §4): its operations grouped by tag. */
export function ReferenceDocument(props: ReferenceProps) {
  const { site, navigation, reference, view } = props;
  const operations = view.groups.reduce((sum, group) => sum + group.operations.length, 0);
  return (
    <Layout
      site={site}
      head={{ title: reference.title, description: props.description, canonical: props.canonical }}
      header={<VersionSwitcher site={site} current={navigation.version} targets={props.switchTargets} />}
    >
      <div class={view.groups.length > 0 ? 'layout' : 'layout no-toc'}>
        <SiteNavigation site={site} navigation={navigation} currentPath={reference.path} />
        <main id="content" tabIndex={-1}>
          <nav class="breadcrumbs" aria-label="Breadcrumbs">
            <ol>
              <li>
                <a href={href(site, '/')}>{site.view.project.name}</a>
              </li>
              <li>API reference</li>
            </ol>
          </nav>
          <article class="content reference">
            <h1>{reference.title}</h1>
            {view.version !== '' ? <p class="page-meta">API version {view.version}</p> : null}
            <Description html={view.description} />
            {view.servers.length > 0 ? (
              <section aria-labelledby="reference_servers">
                <h2 id="reference_servers">Servers</h2>
                <ul class="servers">
                  {view.servers.map((server, i) => (
                    <li key={i}>
                      <code>{server.url}</code>
                      {server.description !== '' ? ` ${server.description}` : null}
                    </li>
                  ))}
                </ul>
              </section>
            ) : null}
            {view.cut ? (
              <p class="notice">
                This reference is very large or deeply nested: parts of it are not shown here. The full
                definition is available from its publisher.
              </p>
            ) : null}
            {operations === 0 ? <p>This reference has no operations.</p> : null}
            {/* Rendered by the templates below, once per view: escaped as everything they write. */}
            <div class="operation-groups" dangerouslySetInnerHTML={{ __html: props.parts.operations }} />
          </article>
        </main>
        {view.groups.length > 0 ? (
          <aside class="toc" dangerouslySetInnerHTML={{ __html: props.parts.toc }} />
        ) : null}
      </div>
    </Layout>
  );
}

/** A reference's operations and table of contents as HTML: the parts of its page that only its view makes. */
export interface ReferenceParts {
  operations: string;
  toc: string;
}

const groupTitle = (view: ReferenceView, group: ReferenceView['groups'][number]): string =>
  group.tag ?? (view.groups.length === 1 ? 'Operations' : 'Other operations');

/**
 * The operations, grouped by tag. A definition of thousands of operations takes seconds to write
 * out, so the page keeps this part by view (site.reference.ts) rather than writing it at every
 * change of the project: only a new definition writes it again.
 */
export function ReferenceOperations({ view }: { view: ReferenceView }) {
  return (
    <>
      {view.groups.map((group) => (
        <section class="operation-group" key={group.anchor} aria-labelledby={group.anchor}>
          <h2 id={group.anchor}>{groupTitle(view, group)}</h2>
          <Description html={group.description} />
          {group.operations.map((operation) => (
            <Operation key={operation.fragment} operation={operation} />
          ))}
        </section>
      ))}
    </>
  );
}

/** The table of contents: the groups, and their operations up to TOC_OPERATIONS in all. */
export function ReferenceToc({ view }: { view: ReferenceView }) {
  const operations = view.groups.reduce((sum, group) => sum + group.operations.length, 0);
  return (
    <nav aria-label="On this page">
      <h2>On this page</h2>
      <ul>
        {view.groups.map((group) => (
          <li key={group.anchor} class="level-2">
            <a href={`#${group.anchor}`}>{groupTitle(view, group)}</a>
            {operations <= TOC_OPERATIONS ? (
              <ul>
                {group.operations.map((operation) => (
                  <li key={operation.fragment} class="level-3">
                    <a href={`#${operation.fragment}`}>
                      {operation.summary !== '' ? operation.summary : `${operation.method} ${operation.path}`}
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </nav>
  );
}
