export type ContentFormat = 'darkdown' | 'markdown' | 'html' | 'text' | 'markdoc';

export interface RenderContext {
  /** titles of the pages of the same version, keyed `${documentationSlug}/${pageSlug}` — for [auto$](/doc/page#frag) links */
  pageTitles?: ReadonlyMap<string, string>;
  /** project variables for %name% and %a.b% (nested objects); a variable with no value is left as written */
  variables?: Readonly<Record<string, unknown>>;
  /** for `markdoc`: where the page's file and those it links to lie in the platform's Git layout */
  markdoc?: MarkdocLinks;
}

/** Where a page is and where the pages it may link to are, as the platform's Git layout names files. */
export interface MarkdocLinks {
  /** this page's file, relative to its version's folder (`guide/install/on-linux.md`) */
  file: string;
  /** each page's file by its address without the leading slash (`guide/on-linux` → its file) */
  pages: ReadonlyMap<string, string>;
}
