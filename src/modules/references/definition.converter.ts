import { createHash } from 'node:crypto';
import { Document, parseDocument } from 'yaml';
import type { WorkerPool } from '../../workers/pool.ts';
import { parseOrderedJson } from './ordered-json.ts';
import { MAX_YAML_ALIASES, withoutBom, YAML_OPTIONS, type DefinitionFormat } from './definition.parser.ts';

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

/** Converted text kept at most, in characters, by one converter. */
const CONVERSION_CACHE_CHARS = 32 * 1024 * 1024;

/**
 * Converting a large definition takes seconds (the yaml package reads about a megabyte a second), and
 * the read operation allows 600 calls a minute: conversions run in a worker thread and are kept, least
 * recently used out first, keyed by the hash of the stored text, so a new upload is never answered
 * with an old conversion.
 */
export class DefinitionConverter {
  private readonly cache = new Map<string, string>();
  private cachedChars = 0;

  constructor(
    private readonly workers: WorkerPool,
    private readonly maxChars = CONVERSION_CACHE_CHARS,
  ) {}

  async convert(text: string, from: DefinitionFormat, to: DefinitionFormat): Promise<string> {
    if (from === to) return text;
    const key = `${createHash('sha256').update(text).digest('base64')}:${to}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const { text: converted } = await this.workers.run({ kind: 'convertDefinition', text, from, to });
    if (converted.length <= this.maxChars) {
      this.cache.set(key, converted);
      this.cachedChars += converted.length;
      for (const [oldKey, old] of this.cache) {
        if (this.cachedChars <= this.maxChars) break;
        this.cache.delete(oldKey);
        this.cachedChars -= old.length;
      }
    }
    return converted;
  }
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
