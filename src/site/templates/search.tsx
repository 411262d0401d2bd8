import type { ReaderVersionRow } from '../../modules/readers/readers.service.ts';
import { href, type SiteContext } from '../site.context.ts';
import type { SiteHit } from '../site.search.presenter.ts';
import { Layout } from './layout.tsx';

/** One page of results, numbered from 1. */
export interface ResultsPage {
  hits: SiteHit[];
  /** all matches */
  total: number;
  page: number;
  pages: number;
  /** the site addresses of the neighbouring pages of results */
  previous: string | null;
  next: string | null;
}

export interface SearchProps {
  site: SiteContext;
  /** the query as searched (cleaned of control characters); '' shows the form alone */
  q: string;
  /** the version searched, or null for all */
  version: ReaderVersionRow | null;
  /** why the query was not searched, shown instead of results */
  refusal: string | null;
  results: ResultsPage | null;
}

/**
 * The search page (the specification's site.md §2): a form that works without scripts, then the results
 * of the query, each a link to its section of a page. Never indexed by search engines.
 */
export function SearchDocument({ site, q, version, refusal, results }: SearchProps) {
  const versions = site.view.versions;
  return (
    <Layout
      site={site}
      head={{ title: q === '' ? 'Search' : `Search: ${q}`, noindex: true }}
      searchVersion={version?.slug}
    >
      <div class="layout single">
        <main id="content" tabIndex={-1}>
          <h1>Search</h1>
          <form
            class="search-page-form"
            role="search"
            aria-label="Search again"
            action={href(site, '/search')}
            method="get"
          >
            <label for="search-query">Search for</label>
            <input id="search-query" type="search" name="q" value={q} />
            {versions.length > 1 ? (
              <>
                <label for="search-version">in</label>
                <select id="search-version" name="v">
                  <option value="" selected={version === null}>
                    All versions
                  </option>
                  {versions.map((v) => (
                    <option key={v.id} value={v.slug} selected={version?.id === v.id}>
                      {v.name}
                    </option>
                  ))}
                </select>
              </>
            ) : null}
            <button type="submit">Search</button>
          </form>
          {refusal !== null ? (
            <p class="search-refusal" role="alert">
              {refusal}
            </p>
          ) : null}
          {results !== null ? <Results q={q} results={results} /> : null}
        </main>
      </div>
    </Layout>
  );
}

function Results({ q, results }: { q: string; results: ResultsPage }) {
  const { hits, total, page, pages } = results;
  return (
    <section aria-labelledby="search-summary">
      <h2 id="search-summary" class="search-summary">
        {total === 0
          ? `No results for “${q}”`
          : `${total} ${total === 1 ? 'result' : 'results'} for “${q}”${pages > 1 ? `, page ${page} of ${pages}` : ''}`}
      </h2>
      {total > 0 && hits.length === 0 ? <p>There are no more results past this page.</p> : null}
      {hits.length > 0 ? (
        <ol class="results">
          {hits.map((hit, i) => (
            <li key={`${i}${hit.url}`}>
              <h3>
                <a href={hit.url}>{hit.title}</a>
              </h3>
              {hit.context !== '' ? <p class="search-context">{hit.context}</p> : null}
              {'html' in hit.excerpt ? (
                // Checked by safeHighlight: escaped text and <mark> alone. The page's one raw insertion.
                <p class="search-excerpt" dangerouslySetInnerHTML={{ __html: hit.excerpt.html }} />
              ) : (
                <p class="search-excerpt">{hit.excerpt.text}</p>
              )}
            </li>
          ))}
        </ol>
      ) : null}
      {results.previous !== null || results.next !== null ? (
        <nav class="pager" aria-label="Pages of results">
          {results.previous !== null ? (
            <a class="previous" href={results.previous} rel="prev">
              <small>Previous</small>
              Page {page - 1}
            </a>
          ) : null}
          {results.next !== null ? (
            <a class="next" href={results.next} rel="next">
              <small>Next</small>
              Page {page + 1}
            </a>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}
