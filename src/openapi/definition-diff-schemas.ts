import { diffBounds } from './definition-diff-bounds.ts';
import type { ChangeCollector, Direction } from './definition-diff.types.ts';
import { follow, isObject, type Json } from './reference-json.ts';

/**
 * Two schemas compared as a client sees them. In a request (`in: 'request'`) the client writes the
 * value: whatever the new schema no longer accepts breaks it (a property removed or newly required,
 * an enum value removed, a type narrowed). In a response it reads the value: whatever it may no
 * longer find, or find in a new shape, breaks it (a property removed or no longer required, a type
 * changed). Local `$ref`s are followed, `allOf` is merged, `nullable` (3.0) is a `null` type (3.1).
 */

/** Pairs of schemas compared at most, over one whole comparison: a bound for hostile documents. */
const MAX_PAIRS = 2_000_000;
/** Nesting followed below one schema. */
const MAX_DEPTH = 64;
/** What an `allOf` part lends the merged schema when no earlier part or the schema itself has it. */
const MERGED_KEYWORDS = [
  'type',
  'enum',
  'items',
  'nullable',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
] as const;
const ALL_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];

export class SchemaDiff {
  private pairs = 0;
  private readonly merged: [Map<object, Json>, Map<object, Json>] = [
    new Map<object, Json>(),
    new Map<object, Json>(),
  ];

  constructor(
    private readonly roots: [Json, Json],
    private readonly out: ChangeCollector,
  ) {}

  /**
   * One schema of an operation (a parameter's, a body's, a response's) against its new form. A pair
   * met twice below the same top is compared once: a schema reached through many `$ref`s costs no
   * more than the document is long, and a recursive one ends.
   */
  compare(before: unknown, after: unknown, where: string, direction: Direction): void {
    this.walk(before, after, where, direction, new Map(), 0);
  }

  private walk(
    rawBefore: unknown,
    rawAfter: unknown,
    where: string,
    direction: Direction,
    seen: Map<object, Set<object>>,
    depth: number,
  ): void {
    const before = this.resolve(0, rawBefore);
    const after = this.resolve(1, rawAfter);
    if (before === null || after === null || depth > MAX_DEPTH || this.pairs >= MAX_PAIRS) return;
    let partners = seen.get(before.key);
    if (partners?.has(after.key)) return;
    if (!partners) seen.set(before.key, (partners = new Set()));
    partners.add(after.key);
    this.pairs++;
    const [a, b] = [before.schema, after.schema];
    this.types(a, b, where, direction);
    this.enums(a, b, where, direction);
    diffBounds(a, b, where, direction, this.out);
    this.properties(a, b, where, direction, seen, depth);
    if (isObject(a.items) && isObject(b.items)) {
      this.walk(a.items, b.items, `${where}[]`, direction, seen, depth + 1);
    }
    if (isObject(a.additionalProperties) && isObject(b.additionalProperties)) {
      this.walk(a.additionalProperties, b.additionalProperties, `${where}{}`, direction, seen, depth + 1);
    }
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const [left, right] = [a[keyword], b[keyword]];
      if (!Array.isArray(left) || !Array.isArray(right)) continue;
      const shared = Math.min(left.length, right.length);
      for (let i = 0; i < shared; i++) {
        this.walk(left[i], right[i], `${where}<${keyword} ${i + 1}>`, direction, seen, depth + 1);
      }
    }
  }

  private types(a: Json, b: Json, where: string, direction: Direction): void {
    const [before, after] = [typesOf(a), typesOf(b)];
    const lost = before.filter((t) => !accepts(after, t));
    const gained = after.filter((t) => !accepts(before, t));
    if (lost.length === 0 && gained.length === 0) return;
    const change = `type ${label(before)} became ${label(after)}`;
    if (direction === 'request') {
      if (lost.length > 0)
        this.out.add('type.narrowed', where, `${change}${listed(before, lost, 'no longer accepted')}`);
      else this.out.add('type.widened', where, change);
    } else if (gained.length > 0) {
      this.out.add(
        'response-type.changed',
        where,
        `${change}${listed(after, gained, 'may now be returned')}`,
      );
    } else {
      this.out.add('response-type.narrowed', where, change);
    }
  }

  private enums(a: Json, b: Json, where: string, direction: Direction): void {
    const [before, after] = [enumOf(a), enumOf(b)];
    if (before === null && after === null) return;
    if (direction === 'request') {
      if (before === null) {
        this.out.add('enum.restricted', where, `now accepts only ${values(after ?? [])}`);
        return;
      }
      if (after === null) return;
      const removed = before.filter((v) => !after.includes(v));
      const added = after.filter((v) => !before.includes(v));
      if (removed.length > 0)
        this.out.add('enum.value-removed', where, `no longer accepts ${values(removed)}`);
      if (added.length > 0) this.out.add('enum.value-added', where, `now also accepts ${values(added)}`);
      return;
    }
    if (before === null || after === null) return;
    const added = after.filter((v) => !before.includes(v));
    const removed = before.filter((v) => !after.includes(v));
    if (added.length > 0) this.out.add('response-enum.value-added', where, `may now be ${values(added)}`);
    if (removed.length > 0)
      this.out.add('response-enum.value-removed', where, `is no longer ${values(removed)}`);
  }

  private properties(
    a: Json,
    b: Json,
    where: string,
    direction: Direction,
    seen: Map<object, Set<object>>,
    depth: number,
  ): void {
    const [before, after] = [propertiesOf(a), propertiesOf(b)];
    if (before === null && after === null) return;
    const [requiredBefore, requiredAfter] = [requiredOf(a), requiredOf(b)];
    // A request never sends readOnly properties; a response never holds writeOnly ones.
    const hidden = direction === 'request' ? 'readOnly' : 'writeOnly';
    const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].sort();
    for (const name of names) {
      const [left, right] = [this.shown(0, before?.[name], hidden), this.shown(1, after?.[name], hidden)];
      const at = `${where}.${name}`;
      const wasRequired = requiredBefore.has(name);
      const isRequired = requiredAfter.has(name);
      if (left === undefined && right === undefined) continue;
      if (direction === 'request') {
        if (right === undefined) {
          const why = after?.[name] === undefined ? 'was removed' : 'became read-only';
          this.out.add('request-property.removed', at, `property ${name} ${why}`);
        } else if (left === undefined) {
          if (isRequired) this.out.add('property.required', at, `new required property ${name}`);
          else this.out.add('request-property.added', at, `new optional property ${name}`);
        } else if (isRequired && !wasRequired) {
          this.out.add('property.required', at, `property ${name} became required`);
        } else if (wasRequired && !isRequired) {
          this.out.add('property.optional', at, `property ${name} became optional`);
        }
      } else if (right === undefined) {
        const why = after?.[name] === undefined ? 'was removed' : 'became write-only';
        this.out.add('response-property.removed', at, `property ${name} ${why}`);
      } else if (left === undefined) {
        this.out.add('response-property.added', at, `new property ${name}`);
      } else if (wasRequired && !isRequired) {
        this.out.add('response-property.optional', at, `property ${name} may now be absent`);
      } else if (isRequired && !wasRequired) {
        this.out.add('response-property.required', at, `property ${name} is now always present`);
      }
      if (left !== undefined && right !== undefined) this.walk(left, right, at, direction, seen, depth + 1);
    }
  }

  /** A property's schema, or undefined when there is none or this side of the exchange never sees it. */
  private shown(side: 0 | 1, raw: unknown, hidden: 'readOnly' | 'writeOnly'): unknown {
    if (raw === undefined) return undefined;
    const resolved = this.resolve(side, raw);
    return resolved?.schema[hidden] === true ? undefined : raw;
  }

  /**
   * A schema with its `$ref`s followed and its `allOf` parts merged into one (properties, required
   * names, type and enum), keyed by the object it came from; null for a `true`/`false` schema or a
   * `$ref` that leads nowhere. Each object is merged once per side.
   */
  private resolve(side: 0 | 1, raw: unknown): { key: object; schema: Json } | null {
    const { node } = follow(this.roots[side], raw);
    if (!isObject(node)) return null;
    const known = this.merged[side].get(node);
    if (known) return { key: node, schema: known };
    this.merged[side].set(node, node);
    const schema = Array.isArray(node.allOf) ? this.mergeAll(side, node, new Set([node])) : node;
    this.merged[side].set(node, schema);
    return { key: node, schema };
  }

  private mergeAll(side: 0 | 1, node: Json, inside: Set<object>): Json {
    const properties: Json = { ...(propertiesOf(node) ?? {}) };
    const required = new Set(requiredOf(node));
    const merged: Json = { ...node };
    for (const part of Array.isArray(node.allOf) ? node.allOf : []) {
      const { node: target } = follow(this.roots[side], part);
      if (!isObject(target) || inside.has(target)) continue;
      inside.add(target);
      const sub = Array.isArray(target.allOf) ? this.mergeAll(side, target, inside) : target;
      for (const [name, schema] of Object.entries(propertiesOf(sub) ?? {})) {
        if (!(name in properties)) properties[name] = schema;
      }
      for (const name of requiredOf(sub)) required.add(name);
      for (const keyword of MERGED_KEYWORDS) {
        if (merged[keyword] === undefined && sub[keyword] !== undefined) merged[keyword] = sub[keyword];
      }
    }
    delete merged.allOf;
    merged.properties = properties;
    merged.required = [...required];
    return merged;
  }
}

/** The JSON types a schema allows, sorted; every type when it names none. */
function typesOf(schema: Json): string[] {
  const named = Array.isArray(schema.type)
    ? schema.type.filter((t): t is string => typeof t === 'string')
    : typeof schema.type === 'string'
      ? [schema.type]
      : [];
  if (named.length === 0) return ALL_TYPES;
  if (schema.nullable === true && !named.includes('null')) named.push('null');
  return [...new Set(named)].sort();
}

/** Whether a schema of these types accepts a value of `type` (an integer is a number). */
const accepts = (types: string[], type: string): boolean =>
  types.includes(type) || (type === 'integer' && types.includes('number'));

const label = (types: string[]): string => (types === ALL_TYPES ? 'any' : types.join(' or '));

/** `: string, null no longer accepted`, said only when the side it was taken from named its types. */
const listed = (side: string[], types: string[], what: string): string =>
  side === ALL_TYPES ? '' : `: ${types.join(', ')} ${what}`;

/** Enum values as JSON text, so that objects and numbers compare by value. */
function enumOf(schema: Json): string[] | null {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v) ?? 'null');
  return 'const' in schema ? [JSON.stringify(schema.const) ?? 'null'] : null;
}

const values = (list: string[]): string =>
  list.length > 10 ? `${list.slice(0, 10).join(', ')} and ${list.length - 10} more` : list.join(', ');

const propertiesOf = (schema: Json): Json | null => (isObject(schema.properties) ? schema.properties : null);

const requiredOf = (schema: Json): Set<string> =>
  new Set(Array.isArray(schema.required) ? schema.required.filter((n) => typeof n === 'string') : []);
