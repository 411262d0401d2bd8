export type ContentFormat = 'darkdown' | 'markdown' | 'html' | 'text';

export interface RenderContext {
  /** titles of the pages of the same version, keyed `${documentationSlug}/${pageSlug}` — for [auto$](/doc/page#frag) links */
  pageTitles?: ReadonlyMap<string, string>;
  /** project variables for %name% and %a.b% (nested objects); a variable with no value is left as written */
  variables?: Readonly<Record<string, unknown>>;
}
