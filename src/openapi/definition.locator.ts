import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { escapeToken, fragmentTokens, pointerTokens } from './json-pointer.ts';
import { withoutBom, YAML_OPTIONS } from './definition.parser.ts';

export interface Location {
  /** JSON Pointer of the place in the file itself (a `$ref` on the way is followed to its target) */
  pointer: string;
  line?: number;
  column?: number;
}

const MAX_REF_HOPS = 64;

/**
 * Finds a JSON Pointer of the dereferenced document in the uploaded text. Both formats are read with
 * the yaml parser here, because it keeps source positions (JSON is YAML flow style); this runs only
 * when a definition is rejected.
 */
export function locate(text: string, pointer: string): Location {
  const lineCounter = new LineCounter();
  const doc = parseDocument(withoutBom(text), {
    ...YAML_OPTIONS,
    uniqueKeys: false,
    lineCounter,
  });
  if (doc.errors.length > 0) return { pointer };

  let node: unknown = doc.contents;
  let physical: string[] = [];
  let hops = 0;
  for (const token of pointerTokens(pointer)) {
    node = deAlias(doc, node);
    if (isMap(node) && !hasKey(node, token)) {
      // The validator saw the target of a `$ref` here; continue in the target.
      const ref = localRef(node);
      if (ref === undefined || ++hops > MAX_REF_HOPS) break;
      const target = follow(doc, ref);
      if (target === undefined) break;
      node = target;
      physical = fragmentTokens(ref);
    }
    const child = childOf(node, token);
    if (child === undefined) break;
    node = child;
    physical.push(token);
  }
  const found = node as Node | null | undefined;
  const range = found?.range;
  const where: Location = { pointer: physical.map((t) => `/${escapeToken(t)}`).join('') };
  if (range) {
    const { line, col } = lineCounter.linePos(range[0]);
    where.line = line;
    where.column = col;
  }
  return where;
}

function deAlias(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

function hasKey(node: { items: Array<{ key: unknown }> }, token: string): boolean {
  return node.items.some((pair) => keyText(pair.key) === token);
}

function localRef(node: { items: Array<{ key: unknown; value: unknown }> }): string | undefined {
  const pair = node.items.find((p) => keyText(p.key) === '$ref');
  const value = isScalar(pair?.value) ? pair.value.value : undefined;
  return typeof value === 'string' && value.startsWith('#') ? value : undefined;
}

function childOf(node: unknown, token: string): unknown {
  if (isMap(node)) return node.items.find((pair) => keyText(pair.key) === token)?.value ?? undefined;
  if (isSeq(node) && /^\d+$/.test(token)) return node.items[Number(token)];
  return undefined;
}

function follow(doc: Document, ref: string): unknown {
  let node: unknown = doc.contents;
  for (const token of fragmentTokens(ref)) {
    node = childOf(deAlias(doc, node), token);
    if (node === undefined) return undefined;
  }
  return deAlias(doc, node);
}

/**
 * The JSON Pointer of a line of `JSON.stringify(value, null, 2)`: the layout the validator's error
 * messages quote (one member per line, `{}` and `[]` on one line, a closing bracket on its own line).
 */
export function pointerAtPrettyLine(value: unknown, target: number): string | undefined {
  let line = 1;
  const visit = (v: unknown, pointer: string): string | undefined => {
    if (line === target) return pointer;
    if (typeof v !== 'object' || v === null) return undefined;
    const entries: Array<[string, unknown]> = Array.isArray(v)
      ? v.map((item, i): [string, unknown] => [String(i), item])
      : Object.entries(v).filter(([, item]) => item !== undefined && typeof item !== 'function');
    if (entries.length === 0) return undefined;
    for (const [key, item] of entries) {
      line++;
      if (line > target) return undefined;
      const found = visit(item, `${pointer}/${escapeToken(key)}`);
      if (found !== undefined) return found;
    }
    line++;
    return line === target ? pointer : undefined;
  };
  return visit(value, '');
}
