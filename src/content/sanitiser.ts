import sanitizeHtml from 'sanitize-html';

const ALIGN = [/^(?:left|right|center)$/];
const HEADING_ATTRIBUTES = ['id'];

/**
 * The allowlist for all HTML Quire returns: what markdown-it and our renderers emit, plus the inline HTML
 * people write in pages. Anything else (script, style, forms, event handlers, `javascript:` URLs) is
 * dropped. Built once: sanitize-html only reads it.
 */
const OPTIONS: sanitizeHtml.IOptions = {
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
};

export function sanitizeHtmlOutput(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
