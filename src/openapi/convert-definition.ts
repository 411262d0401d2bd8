import { Document, parseDocument } from 'yaml';
import { MAX_YAML_ALIASES, withoutBom, YAML_OPTIONS, type DefinitionFormat } from './definition.parser.ts';
import { parseOrderedJson } from './ordered-json.ts';

/**
 * A stored definition in the format asked for. The same format is the stored text itself; the other
 * is converted keeping the key order of the file. That rules out plain JS objects, which move
 * integer-like keys (response codes such as "404" and "200") to the front: the file is read into
 * Maps (the yaml parser's, or parseOrderedJson) and printed from them.
 */
export function convertDefinition(text: string, from: DefinitionFormat, to: DefinitionFormat): string {
  const tree = from === 'json' ? parseOrderedJson(withoutBom(text)) : readYaml(withoutBom(text));
  return to === 'json' ? `${orderedJson(tree, '')}\n` : new Document(tree).toString({ lineWidth: 0 });
}

function readYaml(body: string): unknown {
  const doc = parseDocument(body, YAML_OPTIONS);
  const error = doc.errors[0];
  if (error) throw error;
  return doc.toJS({ mapAsMap: true, maxAliasCount: MAX_YAML_ALIASES });
}

const INDENT = '  ';

/** JSON.stringify(value, null, 2) for a tree whose objects are Maps (in their insertion order). */
function orderedJson(value: unknown, indent: string): string {
  const inner = indent + INDENT;
  if (value instanceof Map) {
    if (value.size === 0) return '{}';
    const members = [...value].map(
      ([k, v]) => `${inner}${JSON.stringify(keyString(k))}: ${orderedJson(v, inner)}`,
    );
    return `{\n${members.join(',\n')}\n${indent}}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${inner}${orderedJson(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  // Numbers that JSON cannot hold (.inf, .nan) become null, as JSON.stringify makes them.
  return JSON.stringify(value) ?? 'null';
}

/** YAML keys may be numbers, booleans, null or even collections; JSON keys are strings. */
function keyString(key: unknown): string {
  if (typeof key === 'string') return key;
  if (key instanceof Map || Array.isArray(key)) return orderedJson(key, '').replace(/\n\s*/g, ' ');
  return String(key);
}
