/**
 * A strict reader of the XML the site writes, for tests: it refuses what is not well-formed (an
 * unescaped `<` or `&`, an unknown entity, unbalanced or crossed tags, a second root, a character
 * XML cannot hold) and gives the tree back with text and attribute values decoded. No DTDs,
 * comments, CDATA or processing instructions but the declaration: the site writes none.
 */
export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: Array<XmlNode | string>;
}

const NAME = /^[A-Za-z_][\w.:-]*/;
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function decode(raw: string, where: number): string {
  if (NOT_XML.test(raw)) throw new Error(`a character XML cannot hold near ${where}`);
  if (raw.includes('<')) throw new Error(`an unescaped < near ${where}`);
  return raw.replace(/&([^;]*);?/g, (match, name: string) => {
    if (!match.endsWith(';')) throw new Error(`an unescaped & near ${where}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (named[name] !== undefined) return named[name];
    const numeric = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(name);
    if (!numeric) throw new Error(`an unknown entity &${name}; near ${where}`);
    return String.fromCodePoint(numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2]));
  });
}

export function parseXml(text: string): XmlNode {
  let at = 0;
  const declaration = /^<\?xml version="1\.0" encoding="utf-8"\?>\s*/i.exec(text);
  if (!declaration) throw new Error('no XML declaration');
  at = declaration[0].length;
  const stack: XmlNode[] = [];
  let root: XmlNode | null = null;
  while (at < text.length) {
    const open = text.indexOf('<', at);
    const chunk = open === -1 ? text.slice(at) : text.slice(at, open);
    const parent = stack.at(-1);
    if (chunk !== '') {
      if (parent) parent.children.push(decode(chunk, at));
      else if (chunk.trim() !== '') throw new Error(`text outside the root near ${at}`);
    }
    if (open === -1) break;
    const close = text.indexOf('>', open);
    if (close === -1) throw new Error(`an unclosed tag at ${open}`);
    const tag = text.slice(open + 1, close);
    at = close + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const top = stack.pop();
      if (top?.name !== name) throw new Error(`</${name}> closes <${top?.name ?? 'nothing'}> at ${open}`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const body = selfClosing ? tag.slice(0, -1) : tag;
    const name = NAME.exec(body)?.[0];
    if (name === undefined) throw new Error(`a tag without a name at ${open}`);
    const node: XmlNode = { name, attributes: {}, children: [] };
    const attributes = body.slice(name.length);
    const ATTRIBUTE = /\s+([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
    let index = 0;
    while (index < attributes.trimEnd().length) {
      ATTRIBUTE.lastIndex = index;
      const match = ATTRIBUTE.exec(attributes);
      if (!match || match[1] === undefined) throw new Error(`a malformed attribute in <${name}> at ${open}`);
      if (match[1] in node.attributes) throw new Error(`attribute ${match[1]} twice at ${open}`);
      node.attributes[match[1]] = decode(match[2] ?? match[3] ?? '', open);
      index = ATTRIBUTE.lastIndex;
    }
    const top = stack.at(-1);
    if (top) top.children.push(node);
    else if (root === null) root = node;
    else throw new Error(`a second root element at ${open}`);
    if (!selfClosing) stack.push(node);
  }
  if (stack.length > 0) throw new Error(`<${stack.at(-1)?.name ?? ''}> is never closed`);
  if (root === null) throw new Error('no root element');
  return root;
}

/** The child elements of a node with this name. */
export const childrenNamed = (node: XmlNode, name: string): XmlNode[] =>
  node.children.filter((child): child is XmlNode => typeof child !== 'string' && child.name === name);

/** The text of a node's first child element with this name (its text children joined). */
export function textOf(node: XmlNode, name: string): string | undefined {
  const child = childrenNamed(node, name)[0];
  return child?.children.filter((c): c is string => typeof c === 'string').join('');
}
