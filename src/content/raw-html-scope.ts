import { escapeText, selfClosing, tagAllowed } from './html-allowlist.ts';
import { sanitizeHtmlOutput, sanitizeOpeningTag } from './sanitiser.ts';

/*
 * Raw HTML in a page is sanitised where it stands, tag by tag, while the rest of the page is written in
 * the sanitiser's own form. What a whole-document sanitiser would do beyond each tag comes from how its
 * parser nests elements: an element left open is closed by an enclosing one's closing tag or at the end,
 * an opening `<li>` closes an open `<li>`, a closing tag without its element is dropped. A scope follows
 * the elements open (the renderer's and the raw ones) and writes those closes itself; where raw HTML would
 * restructure what the renderer wrote (close one of its elements, or open where the parser would close
 * one), the scope gives up and the page is sanitised as a whole instead, which is always right.
 */

const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
/** Opening tags that close the open element first when it is one of these (the sanitiser's parser's rules). */
const CLOSED_BY_OPENING: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  (
    [
      ['tr', ['tr', 'th', 'td']],
      ['th', ['th']],
      ['td', ['thead', 'th', 'td']],
      ['body', ['head', 'link', 'script']],
      ['li', ['li']],
      ['option', ['option']],
      ['optgroup', ['optgroup', 'option']],
      ['dd', ['dd', 'dt']],
      ['dt', ['dd', 'dt']],
      ['rt', ['rt', 'rp']],
      ['rp', ['rt', 'rp']],
      ['tbody', ['thead', 'tbody']],
      ['tfoot', ['thead', 'tbody']],
      ...'select input output button datalist textarea'.split(' ').map((t) => [t, FORM]),
      ...(
        'p h1 h2 h3 h4 h5 h6 address article aside blockquote details div dl fieldset figcaption figure ' +
        'footer form header hr main nav ol pre section table ul'
      )
        .split(' ')
        .map((t) => [t, P]),
    ] as Array<[string, string[]]>
  ).map(([tag, closed]) => [tag, new Set(closed)]),
);

/** Elements with no content and no closing tag. */
const VOID = new Set(
  'area base basefont br col command embed frame hr img input isindex keygen link meta param source track wbr'.split(
    ' ',
  ),
);

/**
 * Elements whose content the parser reads another way (raw text, foreign content) or the sanitiser drops
 * with them: a page holding one is sanitised as a whole.
 */
const NOT_FOLLOWED: ReadonlySet<string> = new Set([
  ...'script style textarea title xmp option noscript plaintext'.split(' '),
  ...'svg math mi mo mn ms mtext annotation-xml foreignobject desc'.split(' '),
]);

interface OpenElement {
  name: string;
  raw: boolean;
}

// The HTML grammar of CommonMark: what markdown-it reads as a tag, and where the parser reads the same.
// Only ASCII whitespace separates attributes (`\s` would take a no-break space, which the parser does not).
const WS = String.raw`[ \t\n\r\f]`;
const ATTRIBUTE = String.raw`${WS}+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:${WS}*=${WS}*(?:[^"'=<>\x60\x00-\x20]+|'[^']*'|"[^"]*"))?`;
const OPEN_TAG = new RegExp(String.raw`<([A-Za-z][A-Za-z0-9-]*)(?:${ATTRIBUTE})*${WS}*\/?>`, 'y');
const CLOSE_TAG = new RegExp(String.raw`<\/([A-Za-z][A-Za-z0-9-]*)${WS}*>`, 'y');
/** A comment both read as ending at its first `-->`. */
const COMMENT = /<!--(?!-?>)(?:(?!--!?>)[\s\S])*?-->/y;
/** Declarations and processing instructions without a `>` before their end: dropped by both. */
const OTHER = /<![A-Za-z][^>]*>|<\?[^>]*\?>/y;

/** Which element a scope of nested content sits in, for the rules above. */
export type ScopeParent = 'none' | 'block' | 'cell';

const PARENT_NAMES: Readonly<Record<ScopeParent, readonly string[]>> = {
  none: [],
  block: ['div'],
  // table cells and captions: the most closing of them stands for all
  cell: ['td', 'th'],
};

export class RawHtmlScope {
  private readonly open: OpenElement[] = [];
  private rawOpen = 0;
  /** set when the page must be sanitised as a whole */
  failed = false;

  constructor(
    private readonly parent: ScopeParent,
    private readonly onFail: () => void,
  ) {}

  private fail(): string {
    if (!this.failed) {
      this.failed = true;
      this.onFail();
    }
    return '';
  }

  private closeTag(element: OpenElement): string {
    return element.raw && tagAllowed(element.name) && !selfClosing(element.name) ? `</${element.name}>` : '';
  }

  /** Closes an opening tag implies, written before it; only raw elements may be closed so. */
  private impliedCloses(name: string): string {
    const closes = CLOSED_BY_OPENING.get(name);
    if (closes === undefined) return '';
    let html = '';
    for (;;) {
      const top = this.open[this.open.length - 1];
      if (top === undefined) {
        if (PARENT_NAMES[this.parent].some((p) => closes.has(p))) this.fail();
        return html;
      }
      if (!closes.has(top.name)) return html;
      if (!top.raw) return this.fail();
      this.open.pop();
      this.rawOpen -= 1;
      html += this.closeTag(top);
    }
  }

  /** Pops down to and including the element at `at`, writing closes for the raw elements above it. */
  private popTo(at: number): string {
    let html = '';
    while (this.open.length > at) {
      const top = this.open.pop();
      if (top === undefined) break;
      if (top.raw) {
        this.rawOpen -= 1;
        html += this.closeTag(top);
      }
    }
    return html;
  }

  private innermost(name: string): number {
    for (let i = this.open.length - 1; i >= 0; i -= 1) if (this.open[i]?.name === name) return i;
    return -1;
  }

  /** An element the renderer opens; returns closes to write before it. */
  openElement(name: string): string {
    const html = this.rawOpen > 0 || this.open.length === 0 ? this.impliedCloses(name) : '';
    if (!VOID.has(name)) this.open.push({ name, raw: false });
    return html;
  }

  /** An element the renderer closes; returns closes of raw elements left open inside it, to write before. */
  closeElement(name: string): string {
    const at = this.innermost(name);
    if (at < 0 || this.open[at]?.raw === true) return this.fail();
    return this.rawOpen > 0 ? this.popTo(at) : (this.open.pop(), '');
  }

  /**
   * Something the renderer wrote whole (a code block, a plugin, an image): its first tag may close raw
   * elements, and it must not close any itself.
   */
  whole(html: string): string {
    if (this.rawOpen === 0 && this.open.length > 0) return '';
    const lt = html.indexOf('<');
    if (lt < 0) return '';
    if (html.charCodeAt(lt + 1) === 0x2f /* / */) return this.rawOpen > 0 ? this.fail() : '';
    const name = /^<([a-z][a-z0-9-]*)/.exec(html.slice(lt, lt + 20))?.[1];
    return name === undefined ? '' : this.impliedCloses(name);
  }

  /** The end of the scope: raw elements still open are closed at the end of the page, or inside nothing. */
  end(): string {
    if (this.rawOpen === 0) return '';
    if (this.parent !== 'none' || this.open.some((e) => !e.raw)) return this.fail();
    return this.popTo(0);
  }

  private rawOpening(tag: string, name: string): string {
    if (NOT_FOLLOWED.has(name)) return this.fail();
    const html = this.impliedCloses(name);
    if (!VOID.has(name)) {
      this.open.push({ name, raw: true });
      this.rawOpen += 1;
    }
    if (!tagAllowed(name)) return html;
    const clean = sanitizeOpeningTag(tag);
    // An allowed element the sanitiser drops whole (an iframe without an allowed source) takes what
    // it encloses with it, which a pass tag by tag cannot follow.
    return clean === '' ? this.fail() : html + clean;
  }

  private rawClosing(name: string): string {
    if (NOT_FOLLOWED.has(name)) return this.fail();
    if (VOID.has(name)) return name === 'br' ? this.fail() : '';
    const at = this.innermost(name);
    if (at < 0) return this.parent === 'none' && name !== 'p' ? '' : this.fail();
    for (let i = at; i < this.open.length; i += 1) if (this.open[i]?.raw !== true) return this.fail();
    return this.popTo(at);
  }

  /**
   * A fragment of raw HTML (an HTML block, inline HTML, a `custom-html` plugin) as the allowlist leaves
   * it: tags through the sanitiser, comments and declarations dropped, text as the sanitiser writes it.
   */
  raw(html: string): string {
    let out = '';
    let pos = 0;
    while (pos < html.length && !this.failed) {
      const lt = html.indexOf('<', pos);
      const textEnd = lt < 0 ? html.length : lt;
      if (textEnd > pos) out += rawText(html.slice(pos, textEnd));
      if (lt < 0) break;
      pos = lt;
      OPEN_TAG.lastIndex = lt;
      const open = OPEN_TAG.exec(html);
      if (open !== null) {
        out += this.rawOpening(open[0], (open[1] ?? '').toLowerCase());
        pos = OPEN_TAG.lastIndex;
        continue;
      }
      CLOSE_TAG.lastIndex = lt;
      const close = CLOSE_TAG.exec(html);
      if (close !== null) {
        out += this.rawClosing((close[1] ?? '').toLowerCase());
        pos = CLOSE_TAG.lastIndex;
        continue;
      }
      COMMENT.lastIndex = lt;
      OTHER.lastIndex = lt;
      if (COMMENT.test(html)) {
        pos = COMMENT.lastIndex;
        continue;
      }
      if (OTHER.test(html)) {
        pos = OTHER.lastIndex;
        continue;
      }
      // A `<` before anything but a letter, `/`, `!` or `?` is text to the parser as well (`a < b`);
      // before those, CommonMark's grammar and the parser's may disagree about where a tag ends.
      if (/[A-Za-z/!?]/.test(html.charAt(lt + 1))) return this.fail();
      out += '&lt;';
      pos = lt + 1;
    }
    return this.failed ? '' : out;
  }
}

/** Text of raw HTML: character references read and written again, as the sanitiser does. */
function rawText(text: string): string {
  return text.includes('&') ? sanitizeHtmlOutput(text) : escapeText(text);
}
