/**
 * The site's XML documents (the Atom feeds, the sitemap), built as trees whose every text and
 * attribute value is escaped when written: no markup is assembled from data by hand. Element and
 * attribute names are the code's own constants.
 */

export interface XmlElement {
  name: string;
  attributes: Readonly<Record<string, string>>;
  children: readonly XmlChild[];
}

/** A child is an element, or text (escaped when written); null is left out. */
export type XmlChild = XmlElement | string | null;

export const element = (
  name: string,
  attributes: Readonly<Record<string, string>> = {},
  ...children: XmlChild[]
): XmlElement => ({ name, attributes, children });

/**
 * Characters XML 1.0 cannot hold at all, even escaped: controls other than tab, line feed and
 * carriage return, U+FFFE/U+FFFF and halves of surrogate pairs standing alone.
 */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const SPECIAL = /[&<>"'\t\n\r]/g;
const TEXT_SPECIAL = /[&<>\r]/g;

const REFERENCES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // In an attribute a parser would turn these into spaces; a carriage return in text into a line feed.
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/**
 * A string as XML character data (`attribute` false) or as an attribute value in double or single
 * quotes (`attribute` true): the markup characters as references, the characters XML cannot hold
 * dropped, so that a parser reads back the string as it was, less those.
 */
export function escapeXml(text: string, attribute = false): string {
  return text.replace(NOT_XML, '').replace(attribute ? SPECIAL : TEXT_SPECIAL, (c) => REFERENCES[c] ?? c);
}

function write(node: XmlElement, out: string[]): void {
  out.push('<', node.name);
  for (const [name, value] of Object.entries(node.attributes)) {
    out.push(' ', name, '="', escapeXml(value, true), '"');
  }
  const children = node.children.filter((child) => child !== null);
  if (children.length === 0) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const child of children) {
    if (typeof child === 'string') out.push(escapeXml(child));
    else write(child, out);
  }
  out.push('</', node.name, '>');
}

/** A whole document: the declaration, then the root element. */
export function xmlDocument(root: XmlElement): string {
  const out = ['<?xml version="1.0" encoding="utf-8"?>\n'];
  write(root, out);
  out.push('\n');
  return out.join('');
}
