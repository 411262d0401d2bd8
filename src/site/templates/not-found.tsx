import { href, type SiteContext } from '../site.context.ts';
import { Layout } from './layout.tsx';

/** What readers get for an address that names nothing they can see: never a stack trace or JSON. */
export function NotFoundDocument({ site }: { site: SiteContext }) {
  return (
    <Layout site={site} head={{ title: 'Page not found', noindex: true }}>
      <div class="layout single">
        <main id="content" tabIndex={-1}>
          <h1>Page not found</h1>
          <p>There is no page at this address. It may have moved, or it is not published.</p>
          <p>
            <a href={href(site, '/')}>Go to the start of the documentation</a>, or search for what you were
            looking for above.
          </p>
        </main>
      </div>
    </Layout>
  );
}
