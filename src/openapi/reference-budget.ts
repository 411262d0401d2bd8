import { textOf } from './reference-json.ts';

/**
 * What one reference page may spend: schema nodes and description HTML. The bounds keep the page of
 * a hostile or merely huge definition to a few megabytes, whatever the document; what they leave
 * out is marked, and the page says so.
 */

/** Schema nodes shown on one page, and by one schema at most and at least (see ViewBudget.share). */
const NODES_PER_PAGE = 20_000;
const NODES_PER_SCHEMA = 600;
const MIN_NODES_PER_SCHEMA = 40;
/** Description HTML on one page, in characters; beyond it descriptions are left out. */
const HTML_PER_PAGE = 1_000_000;
/** Distinct descriptions whose HTML is kept while a page is built (schemas repeat theirs). */
const RENDERED_KEPT = 10_000;

/** What one page may still spend, and the Markdown renderer it spends it through. */
export class ViewBudget {
  nodes = NODES_PER_PAGE;
  /** the nodes one schema may take */
  perSchema = NODES_PER_SCHEMA;
  /** something was left out */
  cut = false;
  private htmlChars = 0;
  private readonly rendered = new Map<string, string>();

  constructor(private readonly markdown: (text: string) => string) {}

  /**
   * Shares the page's nodes among the schemas to come: a large reference shows each of them less
   * deep, rather than its first ones in full and the rest not at all.
   */
  share(schemas: number): void {
    const share = Math.floor(NODES_PER_PAGE / Math.max(1, schemas));
    this.perSchema = Math.max(MIN_NODES_PER_SCHEMA, Math.min(NODES_PER_SCHEMA, share));
  }

  /** A description as sanitised HTML ('' for none, or when the page has shown enough). */
  html(value: unknown): string {
    const text = textOf(value);
    if (text === '') return '';
    if (this.htmlChars > HTML_PER_PAGE) {
      this.cut = true;
      return '';
    }
    let html = this.rendered.get(text);
    if (html === undefined) {
      html = this.markdown(text);
      if (this.rendered.size < RENDERED_KEPT) this.rendered.set(text, html);
    }
    this.htmlChars += html.length;
    return html;
  }

  /** Text as the view keeps it: cut at `max` characters. */
  text(value: string, max: number): string {
    return value.length > max ? `${value.slice(0, max - 1)}…` : value;
  }
}
