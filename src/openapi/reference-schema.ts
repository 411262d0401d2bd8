import type { ViewBudget } from './reference-budget.ts';
import { follow, isObject, textOf, valueText, type Json } from './reference-json.ts';
import type { CompositionView, SchemaView } from './reference-view.types.ts';

/**
 * Schemas as the reference page shows them: local `$ref`s followed and named, a schema that contains
 * itself shown once and then only named, and everything bounded. A hostile document can point each
 * schema twice at the next (2^n expanded nodes from n schemas), nest deeply, or list thousands of
 * properties: a budget of nodes per schema and per page (reference-budget.ts), a depth and per-list
 * limits cap the view, and what they leave out is marked `cut`.
 */

/** Nesting shown below one schema; deeper is named and cut. */
const MAX_DEPTH = 8;
/** Properties, or variants of a composition, shown of one schema. */
const MAX_LIST = 200;
const MAX_ENUM = 100;
const MAX_RULE_CHARS = 200;

/** Where one schema's walk is: its ancestors (by `$ref` and by object), its own node budget. */
interface Walk {
  refs: Set<string>;
  objects: Set<object>;
  nodes: number;
}

export class SchemaViews {
  constructor(
    private readonly root: Json,
    private readonly budget: ViewBudget,
  ) {}

  /** One schema shown from its top: a parameter's, a body's, a response's. */
  view(schema: unknown): SchemaView {
    return this.walk(schema, 0, { refs: new Set(), objects: new Set(), nodes: this.budget.perSchema });
  }

  private walk(raw: unknown, depth: number, walk: Walk): SchemaView {
    const { node, ref, name, unresolved } = follow(this.root, raw);
    if (unresolved !== null) return leaf(this.budget.text(unresolved, MAX_RULE_CHARS), name, 'unresolved');
    if (walk.nodes <= 0 || this.budget.nodes <= 0) {
      this.budget.cut = true;
      return leaf(name ?? '…', name, 'cut');
    }
    walk.nodes--;
    this.budget.nodes--;
    if (node === true || node === undefined) return leaf('any', name);
    if (!isObject(node)) return leaf(node === false ? 'nothing' : 'any', name);
    if ((ref !== null && walk.refs.has(ref)) || walk.objects.has(node)) {
      return leaf(typeLabel(node, this.root) || 'schema', name, 'circular');
    }
    const view = this.describe(node, name, raw);
    if (depth >= MAX_DEPTH) {
      this.budget.cut = true;
      return { ...view, cut: true };
    }
    if (ref !== null) walk.refs.add(ref);
    walk.objects.add(node);
    try {
      this.expand(node, view, depth, walk);
    } finally {
      if (ref !== null) walk.refs.delete(ref);
      walk.objects.delete(node);
    }
    return view;
  }

  /** What a schema says of itself: type, description, rules and enum; not its parts. */
  private describe(node: Json, name: string | null, raw: unknown): SchemaView {
    // OpenAPI 3.1 lets a `$ref` carry its own description, which wins over the target's.
    const description =
      isObject(raw) && raw !== node && 'description' in raw ? raw.description : node.description;
    const values = Array.isArray(node.enum) ? node.enum : [];
    if (values.length > MAX_ENUM) this.budget.cut = true;
    return {
      name,
      type: this.budget.text(typeLabel(node, this.root), MAX_RULE_CHARS),
      description: this.budget.html(description),
      circular: false,
      cut: false,
      rules: rulesOf(node).map((rule) => this.budget.text(rule, MAX_RULE_CHARS)),
      enum: values.slice(0, MAX_ENUM).map((value) => this.budget.text(valueText(value), MAX_RULE_CHARS)),
      properties: [],
      additional: null,
      items: null,
      compositions: [],
    };
  }

  /**
   * A schema's parts, in turn, until the budget is spent: then the rest is left out and the schema
   * marked cut (not one more leaf per remaining property, which would be a page of its own).
   */
  private expand(node: Json, view: SchemaView, depth: number, walk: Walk): void {
    const left = (count: number): boolean => {
      if (walk.nodes > 0 && this.budget.nodes > 0 && count <= MAX_LIST) return true;
      view.cut = true;
      this.budget.cut = true;
      return false;
    };
    const next = (schema: unknown) => this.walk(schema, depth + 1, walk);
    if (isObject(node.properties)) {
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      for (const [property, schema] of Object.entries(node.properties)) {
        if (!left(view.properties.length + 1)) break;
        const name = this.budget.text(property, MAX_RULE_CHARS);
        view.properties.push({ name, required: required.has(property), schema: next(schema) });
      }
    }
    if (isObject(node.additionalProperties) && left(1)) view.additional = next(node.additionalProperties);
    if (node.items !== undefined && !Array.isArray(node.items) && left(1)) view.items = next(node.items);
    for (const kind of ['allOf', 'oneOf', 'anyOf', 'not'] as const) {
      const list: unknown[] =
        kind === 'not' ? (node.not === undefined ? [] : [node.not]) : asList(node[kind]);
      if (list.length === 0) continue;
      const composition: CompositionView = { kind, schemas: [] };
      view.compositions.push(composition);
      for (const schema of list) {
        if (!left(composition.schemas.length + 1)) break;
        composition.schemas.push(next(schema));
      }
    }
  }
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function leaf(type: string, name: string | null, state?: 'circular' | 'cut' | 'unresolved'): SchemaView {
  return {
    name,
    type: state === 'unresolved' ? `see ${type}` : type,
    description: '',
    circular: state === 'circular',
    cut: state === 'cut',
    rules: [],
    enum: [],
    properties: [],
    additional: null,
    items: null,
    compositions: [],
  };
}

/** `string (date-time)`, `array of Pet`, `integer | null`, `object`: what a schema is at a glance. */
export function typeLabel(node: Json, root: Json): string {
  const types = Array.isArray(node.type) ? node.type.filter((t) => typeof t === 'string') : [];
  let type = typeof node.type === 'string' ? node.type : types.join(' | ');
  if (type === '') {
    if (isObject(node.properties) || isObject(node.additionalProperties)) type = 'object';
    else if (node.items !== undefined) type = 'array';
    else if ('const' in node) type = jsonType(node.const);
    else if (Array.isArray(node.enum) && node.enum.length > 0) type = jsonType(node.enum[0]);
    else if (Array.isArray(node.oneOf)) return 'one of';
    else if (Array.isArray(node.anyOf)) return 'any of';
    else if (Array.isArray(node.allOf)) return 'all of';
    else type = 'any';
  }
  if (type === 'array' && node.items !== undefined && !Array.isArray(node.items)) {
    const items = follow(root, node.items);
    const inner =
      items.name ?? (isObject(items.node) && typeof items.node.type === 'string' ? items.node.type : '');
    if (inner !== '') type = `array of ${inner}`;
  }
  const format = textOf(node.format);
  return format === '' ? type : `${type} (${format})`;
}

const jsonType = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'object'
        ? 'object'
        : typeof value;

function rulesOf(node: Json): string[] {
  const rules: string[] = [];
  const add = (condition: boolean, rule: () => string) => {
    if (condition) rules.push(rule());
  };
  const has = (key: string) => node[key] !== undefined;
  add(node.nullable === true, () => 'nullable');
  add(node.deprecated === true, () => 'deprecated');
  add(node.readOnly === true, () => 'read only');
  add(node.writeOnly === true, () => 'write only');
  // OpenAPI 3.0 writes exclusive bounds as flags beside the bound, 3.1 as bounds of their own.
  const exclusive = (flag: unknown) => flag === true;
  add(has('minimum'), () => `${exclusive(node.exclusiveMinimum) ? '>' : '≥'} ${valueText(node.minimum)}`);
  add(typeof node.exclusiveMinimum === 'number', () => `> ${valueText(node.exclusiveMinimum)}`);
  add(has('maximum'), () => `${exclusive(node.exclusiveMaximum) ? '<' : '≤'} ${valueText(node.maximum)}`);
  add(typeof node.exclusiveMaximum === 'number', () => `< ${valueText(node.exclusiveMaximum)}`);
  add(has('multipleOf'), () => `multiple of ${valueText(node.multipleOf)}`);
  add(has('minLength'), () => `at least ${valueText(node.minLength)} characters`);
  add(has('maxLength'), () => `at most ${valueText(node.maxLength)} characters`);
  add(has('pattern'), () => `pattern: ${valueText(node.pattern)}`);
  add(has('minItems'), () => `at least ${valueText(node.minItems)} items`);
  add(has('maxItems'), () => `at most ${valueText(node.maxItems)} items`);
  add(node.uniqueItems === true, () => 'unique items');
  add(has('minProperties'), () => `at least ${valueText(node.minProperties)} properties`);
  add(has('maxProperties'), () => `at most ${valueText(node.maxProperties)} properties`);
  add('const' in node, () => `always ${valueText(node.const)}`);
  add(has('default'), () => `default: ${valueText(node.default)}`);
  add(
    isObject(node.discriminator) && typeof node.discriminator.propertyName === 'string',
    () => `told apart by: ${String((node.discriminator as Json).propertyName)}`,
  );
  return rules;
}
