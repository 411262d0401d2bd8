import sanitizeHtml from 'sanitize-html';

const ALIGN = [/^(?:left|right|center)$/];
const HEADING_ATTRIBUTES = ['id'];

/** Disallowed elements whose content goes with them (sanitize-html's own list, named so Markdown output can follow it). */
const NON_TEXT_TAGS = ['script', 'style', 'textarea', 'option', 'xmp'];

/**
 * An iframe is an allowed player's embed or nothing: one left without a source (none given, or one on
 * a host the allowlist does not name, whose `src` goes) is dropped with what it encloses, not kept as
 * an empty frame.
 */
const EMBEDS = new Set(['iframe']);
const emptyEmbed = (frame: sanitizeHtml.IFrame): boolean => EMBEDS.has(frame.tag) && !frame.attribs.src;

/**
 * The allowlist for all HTML Quire returns: what markdown-it and our renderers emit, plus the inline HTML
 * people write in pages. Anything else (script, style, forms, event handlers, `javascript:` URLs) is
 * dropped. Built once: sanitize-html only reads it.
 */
export const OPTIONS: sanitizeHtml.IOptions = {
  // sanitize-html looks tags up with indexOf, so the most frequent come first.
  allowedTags: [
    ...'p li a code strong em ul ol h2 h3 pre br div span h4 h1 h5 h6 blockquote img hr s del'.split(' '),
    ...'table thead tbody tr th td colgroup col sup section input'.split(' '),
    ...'i kbd abbr figure figcaption iframe video details summary'.split(' '),
    // inline HTML found in real pages
    ...'b u ins mark small sub q cite dl dt dd caption tfoot var samp'.split(' '),
  ],
  allowedAttributes: {
    a: ['href', 'title', 'id', 'class', 'name'],
    img: ['src', 'alt', 'title', 'width', 'height', 'class'],
    h1: HEADING_ATTRIBUTES,
    h2: HEADING_ATTRIBUTES,
    h3: HEADING_ATTRIBUTES,
    h4: HEADING_ATTRIBUTES,
    h5: HEADING_ATTRIBUTES,
    h6: HEADING_ATTRIBUTES,
    ol: ['start', 'class'],
    ul: ['class'],
    li: ['id', 'class'],
    code: ['class'],
    pre: ['class'],
    div: ['class', 'data-synced-block-id'],
    span: ['class'],
    i: ['class'],
    abbr: ['class', 'title'],
    figure: ['class'],
    details: ['class', 'open'],
    section: ['class'],
    hr: ['class'],
    sup: ['class', 'id'],
    th: ['style', 'colspan', 'rowspan'],
    td: ['style', 'colspan', 'rowspan'],
    col: ['width'],
    iframe: ['src', 'title', 'loading', 'allowfullscreen'],
    video: ['src', 'controls', 'preload'],
    input: [{ name: 'type', multiple: false, values: ['checkbox'] }, 'checked', 'disabled', 'class'],
  },
  // markdown-it writes GFM column alignment as a style; nothing else may use one.
  allowedStyles: { th: { 'text-align': ALIGN }, td: { 'text-align': ALIGN } },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowedIframeHostnames: ['www.youtube.com', 'player.vimeo.com', 'www.loom.com'],
  allowIframeRelativeUrls: false,
  allowProtocolRelative: true,
  selfClosing: ['img', 'br', 'hr', 'input', 'col'],
  nonTextTags: NON_TEXT_TAGS,
  exclusiveFilter: emptyEmbed,
};

export function sanitizeHtmlOutput(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

/**
 * The same allowlist for HTML Markdown output keeps: the sanitiser writes text anew (references decoded),
 * and a `[` in it would be Markdown again to a reader that reads the HTML as a paragraph; as `&#91;` it
 * is the same character and never a link.
 */
const MARKDOWN_OPTIONS: sanitizeHtml.IOptions = {
  ...OPTIONS,
  textFilter: (text) => text.replace(/\[/g, '&#91;'),
};

export function sanitizeHtmlForMarkdown(html: string): string {
  return sanitizeHtml(html, MARKDOWN_OPTIONS);
}

export const ALLOWED_TAGS: ReadonlySet<string> = new Set(OPTIONS.allowedTags || []);
const CONTENT_DROPPED: ReadonlySet<string> = new Set(NON_TEXT_TAGS);

/**
 * An element whose text goes with it when the allowlist drops it (`<script>`, an iframe without an
 * allowed source): Markdown output drops what it encloses too.
 */
export function dropsContent(tagName: string): boolean {
  const name = tagName.toLowerCase();
  return CONTENT_DROPPED.has(name) || EMBEDS.has(name);
}

// The HTML grammar of CommonMark (what markdown-it reads as inline HTML and what starts an HTML block).
const ATTRIBUTE = String.raw`\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\s*=\s*(?:[^"'=<>\x60\x00-\x20]+|'[^']*'|"[^"]*"))?`;
const OPEN_TAG = String.raw`<[A-Za-z][A-Za-z0-9-]*(?:${ATTRIBUTE})*\s*\/?>`;
const CLOSE_TAG = String.raw`<\/[A-Za-z][A-Za-z0-9-]*\s*>`;
const OTHER_MARKUP = String.raw`<!---?>|<!--(?:[^-]|-[^-]|--[^>])*-->|<\?[\s\S]*?\?>|<![A-Za-z][^>]*>|<!\[CDATA\[[\s\S]*?\]\]>`;
const MARKUP_AT = new RegExp(`${OPEN_TAG}|${CLOSE_TAG}|${OTHER_MARKUP}`, 'y');
const TAG_NAME = /^<\/?([A-Za-z][A-Za-z0-9-]*)/;
const BARE_TAG = /^<\/?([A-Za-z][A-Za-z0-9-]*)\s*\/?>$/;

/**
 * Attributes a browser reads exactly as written: quoted or bare values without `&` (nothing to decode),
 * `<` or `>` (nothing that could end a raw-text element such as an open `<iframe>`), quotes or controls.
 */
const PLAIN_ATTRIBUTE =
  // eslint-disable-next-line no-control-regex -- a value holding control characters is not plain
  /\s+([a-zA-Z_:][a-zA-Z0-9:._-]*)(?:\s*=\s*(?:"([^"&<>\x60\x00-\x1f]*)"|'([^'&<>\x60\x00-\x1f]*)'|([^\s"'=<>\x60&\x00-\x1f]+)))?/y;
const PLAIN_TAG_END = /\s*\/?>$/y;

/** The attributes of a tag as a browser reads them, or null when the tag is not plainly written. */
function plainAttributes(tag: string, from: number): Map<string, string> | null {
  const attributes = new Map<string, string>();
  let pos = from;
  for (;;) {
    PLAIN_TAG_END.lastIndex = pos;
    if (PLAIN_TAG_END.test(tag)) return attributes;
    PLAIN_ATTRIBUTE.lastIndex = pos;
    const match = PLAIN_ATTRIBUTE.exec(tag);
    if (match === null) return null;
    const name = (match[1] ?? '').toLowerCase();
    // A repeated attribute: browsers keep the first; leave it to the sanitiser to write that down.
    if (attributes.has(name)) return null;
    attributes.set(name, match[2] ?? match[3] ?? match[4] ?? '');
    pos = PLAIN_ATTRIBUTE.lastIndex;
  }
}

function sameAttributes(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string> | null): boolean {
  if (b === null || a.size !== b.size) return false;
  for (const [name, value] of a) if (b.get(name) !== value) return false;
  return true;
}

/**
 * A comment a browser and CommonMark end at the same `-->`, hiding no markup: kept in Markdown output,
 * where it is as invisible as HTML output, which drops it.
 */
const PLAIN_COMMENT = /^<!--[^<>]*-->$/;

/**
 * One piece of HTML markup (a tag, open or close, or a comment) as the allowlist leaves it: '' when it
 * goes, the tag exactly as written when the sanitiser would keep every attribute as it is, otherwise the
 * sanitiser's rewrite. Comments that hide no markup stay; other comments, processing instructions,
 * declarations and CDATA go, as in HTML output.
 */
const RECENT_TAGS = 1024;
/**
 * Longer tags are sanitised each time: they seldom repeat, and a full memo of them (a page may hold
 * tags of megabytes) would weigh up to RECENT_TAGS times as much.
 */
const MEMO_TAG_LENGTH = 1024;
const recentTags = new Map<string, string>();

export function sanitizeHtmlTag(tag: string): string {
  if (tag.length > MEMO_TAG_LENGTH) return sanitizeTag(tag);
  let clean = recentTags.get(tag);
  if (clean === undefined) {
    clean = sanitizeTag(tag);
    // Pages repeat their tags; a small memo spares most sanitiser runs. Emptied, not evicted, when full.
    if (recentTags.size >= RECENT_TAGS) recentTags.clear();
    recentTags.set(tag, clean);
  }
  return clean;
}

function sanitizeTag(tag: string): string {
  const name = TAG_NAME.exec(tag)?.[1]?.toLowerCase();
  if (name === undefined) return PLAIN_COMMENT.test(tag) ? tag : '';
  const allowed = ALLOWED_TAGS.has(name);
  if (tag.charCodeAt(1) === 0x2f /* / */) return allowed ? tag : '';
  // A bare embed has no source: the sanitiser drops it.
  if (BARE_TAG.test(tag) && !EMBEDS.has(name)) return allowed ? tag : '';
  if (!allowed) return '';
  // sanitize-html closes what it opens; only the opening tag is this tag's.
  const clean = /^<[^>]*>/.exec(sanitizeHtmlOutput(tag))?.[0] ?? '';
  if (clean === '' || clean === tag) return clean;
  const written = plainAttributes(tag, 1 + name.length);
  // The rewrite is plain by construction (values escaped, always quoted).
  return written !== null && sameAttributes(written, plainAttributes(clean, 1 + name.length)) ? tag : clean;
}

/**
 * Elements after which a browser stops reading tags the way the scan below does (raw text, RCDATA,
 * foreign content): a block holding one is sanitised as a whole.
 */
const OTHER_PARSING = new Set(
  'script style xmp iframe noembed noframes noscript textarea title plaintext svg math'.split(' '),
);

/** Tags, comments and text of an HTML block, or null when a browser could read it another way. */
function sanitizeTagByTag(html: string): string | null {
  let out = '';
  let pos = 0;
  for (;;) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) return out + html.slice(pos);
    out += html.slice(pos, lt);
    MARKUP_AT.lastIndex = lt;
    const markup = MARKUP_AT.exec(html)?.[0];
    if (markup === undefined) {
      // A `<` before anything but a letter, `/`, `!` or `?` is text to a browser as well (`a < b`);
      // before those, CommonMark's grammar and a browser's may disagree about where a tag ends.
      if (/[A-Za-z/!?]/.test(html.charAt(lt + 1))) return null;
      out += '<';
      pos = lt + 1;
      continue;
    }
    const name = TAG_NAME.exec(markup)?.[1]?.toLowerCase();
    if (name !== undefined && markup.charCodeAt(1) !== 0x2f && OTHER_PARSING.has(name)) return null;
    out += sanitizeHtmlTag(markup);
    pos = lt + markup.length;
  }
}

const BLANK_LINE = /\n[ \t]*(?=\n|$)/g;

/**
 * An HTML block as Markdown output keeps it: through the allowlist, and byte for byte where the allowlist
 * keeps everything. Read tag by tag when the block holds only tags CommonMark and browsers agree on, so
 * the rest stays as written; otherwise sanitised as a whole, like HTML output. Lines a removal leaves
 * blank are dropped when the block had none, so it stays one HTML block.
 */
export function sanitizeHtmlBlock(html: string): string {
  const clean = sanitizeTagByTag(html) ?? sanitizeHtmlForMarkdown(html);
  if (clean === html) return html;
  const hadBlankLine = /\n[ \t]*\n/.test(html);
  return hadBlankLine ? clean : clean.replace(BLANK_LINE, '').replace(/^[ \t]*\n/, '');
}

const recentHtmlTags = new Map<string, string>();

/**
 * One opening tag of raw HTML (an allowed element) as the sanitiser writes it: sanitize-html itself reads
 * it, alone, so attributes, URLs and escaping follow the allowlist exactly. Memoised, as tags repeat.
 */
export function sanitizeOpeningTag(tag: string): string {
  const memo = tag.length <= MEMO_TAG_LENGTH;
  let clean = memo ? recentHtmlTags.get(tag) : undefined;
  if (clean === undefined) {
    // sanitize-html closes what it opens; only the opening tag is this tag's.
    clean = /^<[^>]*>/.exec(sanitizeHtmlOutput(tag))?.[0] ?? '';
    if (!memo) return clean;
    if (recentHtmlTags.size >= RECENT_TAGS) recentHtmlTags.clear();
    recentHtmlTags.set(tag, clean);
  }
  return clean;
}
