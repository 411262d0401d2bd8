import { follow, isObject, textOf, valueText, type Json } from './reference-json.ts';

/**
 * The `curl` sample of an operation: the first server's URL (its variables at their defaults), the
 * path with the examples the document gives its parameters (else `{name}` for the reader to fill
 * in), required query, header and cookie parameters, the credentials its security asks for as shell
 * variables, and the request body: the document's example, else one made from the schema.
 */

export interface CurlParameter {
  name: string;
  in: string;
  required: boolean;
  /** the document's example for it, or undefined */
  example: unknown;
}

export interface CurlCredential {
  kind: 'bearer' | 'basic' | 'header' | 'query' | 'cookie';
  /** the header, query or cookie name (apiKey) */
  name: string;
}

export interface CurlInput {
  server: string;
  method: string;
  path: string;
  parameters: CurlParameter[];
  /** the body's media type, its example value, and that value as the page writes it (bounded) */
  body: { type: string; example: unknown; text: string } | null;
  credentials: CurlCredential[];
}

/** A body made from a schema stays small: this deep, this many properties, this many values. */
const EXAMPLE_DEPTH = 4;
const EXAMPLE_PROPERTIES = 20;
const EXAMPLE_NODES = 200;
const MAX_SAMPLE_CHARS = 8_000;
const MAX_FIELDS = 50;

/** A word in single quotes for a POSIX shell: nothing in it is expanded. */
const quoted = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

export function curlSample(input: CurlInput): string {
  const path = input.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const parameter = input.parameters.find((p) => p.in === 'path' && p.name === name);
    return parameter?.example !== undefined ? encodeURIComponent(shortText(parameter.example)) : whole;
  });
  const query: string[] = [];
  const lines: string[] = [];
  for (const parameter of input.parameters) {
    if (!parameter.required && parameter.example === undefined) continue;
    // A placeholder stays as it is, for the reader to see and replace.
    const value = parameter.example === undefined ? `{${parameter.name}}` : shortText(parameter.example);
    const encoded = parameter.example === undefined ? value : encodeURIComponent(value);
    if (parameter.in === 'query') query.push(`${encodeURIComponent(parameter.name)}=${encoded}`);
    else if (parameter.in === 'header') lines.push(`-H ${quoted(`${parameter.name}: ${value}`)}`);
    else if (parameter.in === 'cookie') lines.push(`-b ${quoted(`${parameter.name}=${value}`)}`);
  }
  for (const credential of input.credentials) {
    // Double quotes: the reader's shell fills in the variable.
    if (credential.kind === 'bearer') lines.push('-H "Authorization: Bearer $TOKEN"');
    else if (credential.kind === 'basic') lines.push('-u "$USERNAME:$PASSWORD"');
    else if (credential.kind === 'header') lines.push(`-H "${shellSafe(credential.name)}: $API_KEY"`);
    else if (credential.kind === 'cookie') lines.push(`-b "${shellSafe(credential.name)}=$API_KEY"`);
    else query.push(`${encodeURIComponent(credential.name)}={API_KEY}`);
  }
  if (input.body !== null) lines.push(...bodyLines(input.body));
  const url = `${input.server.replace(/\/$/, '')}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  // curl reads `{…}` and `[…]` in a URL as patterns unless told not to.
  const globOff = /[{}[\]]/.test(url) ? ' --globoff' : '';
  const method = input.method.toUpperCase();
  const first = `curl${method === 'GET' ? '' : ` -X ${method}`}${globOff} ${quoted(url)}`;
  const sample = [first, ...lines].join(' \\\n  ');
  return sample.length > MAX_SAMPLE_CHARS ? `${sample.slice(0, MAX_SAMPLE_CHARS - 1)}…` : sample;
}

/** A name inside double quotes: without the characters a shell would read there. */
const shellSafe = (name: string): string => name.replace(/["$`\\]/g, '');

function bodyLines({ type, example, text }: NonNullable<CurlInput['body']>): string[] {
  const lines = [`-H ${quoted(`Content-Type: ${type}`)}`];
  if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') {
    const flag = type === 'multipart/form-data' ? '-F' : '--data-urlencode';
    if (isObject(example)) {
      for (const [name, value] of Object.entries(example).slice(0, MAX_FIELDS))
        lines.push(`${flag} ${quoted(`${name}=${shortText(value)}`)}`);
      return lines;
    }
  }
  if (text !== '') lines.push(`-d ${quoted(text)}`);
  return lines;
}

/**
 * A parameter's or a form field's value on one line: scalars as they are, a list of scalars joined
 * by commas; anything larger is `…` (it may be any size, and is shared by many operations).
 */
function shortText(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    const scalars = Array.isArray(value) && value.length <= 20 && value.every((v) => typeof v !== 'object');
    return scalars ? value.map((v) => valueText(v)).join(',') : '…';
  }
  const text = valueText(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * A value of a schema, for a sample: its example, default, first enum value or const where it has
 * one, else a placeholder of its type; objects with their properties, arrays with one item.
 */
export function exampleOf(root: Json, schema: unknown): unknown {
  let nodes = EXAMPLE_NODES;
  const make = (raw: unknown, depth: number, seen: ReadonlySet<unknown>): unknown => {
    const { node } = follow(root, raw);
    if (!isObject(node) || nodes-- <= 0 || seen.has(node)) return undefined;
    if (node.example !== undefined) return node.example;
    if (Array.isArray(node.examples) && node.examples.length > 0) return node.examples[0];
    if (node.default !== undefined) return node.default;
    if ('const' in node) return node.const;
    if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
    const inner = new Set(seen).add(node);
    const variants = [node.oneOf, node.anyOf].find((list) => Array.isArray(list) && list.length > 0);
    if (Array.isArray(variants)) return make(variants[0], depth, inner);
    if (Array.isArray(node.allOf)) {
      const merged: Json = {};
      for (const part of node.allOf) {
        const value = make(part, depth, inner);
        if (isObject(value)) Object.assign(merged, value);
      }
      return merged;
    }
    const type: unknown = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
    if (type === 'object' || isObject(node.properties)) {
      if (depth >= EXAMPLE_DEPTH) return {};
      const value: Json = {};
      for (const [name, property] of Object.entries(isObject(node.properties) ? node.properties : {}).slice(
        0,
        EXAMPLE_PROPERTIES,
      )) {
        const made = make(property, depth + 1, inner);
        if (made !== undefined) value[name] = made;
      }
      return value;
    }
    if (type === 'array') {
      const item = depth >= EXAMPLE_DEPTH ? undefined : make(node.items, depth + 1, inner);
      return item === undefined ? [] : [item];
    }
    if (type === 'integer' || type === 'number') return 0;
    if (type === 'boolean') return true;
    if (type === 'string') return scalarPlaceholder(node.format);
    return undefined;
  };
  return make(schema, 0, new Set());
}

function scalarPlaceholder(format: unknown): string {
  switch (format) {
    case 'date-time':
      return '2024-01-01T00:00:00Z';
    case 'date':
      return '2024-01-01';
    case 'email':
      return 'user@example.com';
    case 'uuid':
      return '00000000-0000-0000-0000-000000000000';
    case 'uri':
    case 'url':
      return 'https://example.com';
    case 'binary':
      return '@file';
    default:
      return 'string';
  }
}

/** The first server's URL with its variables at their defaults ('' when the document names none). */
export function serverOf(doc: Json): string {
  const first: unknown = Array.isArray(doc.servers) ? doc.servers[0] : undefined;
  if (!isObject(first)) return '';
  const variables = isObject(first.variables) ? first.variables : {};
  return textOf(first.url).replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && variable.default !== undefined ? valueText(variable.default) : whole;
  });
}

/** What the operation's first security requirement (else the document's) asks a request to carry. */
export function credentialsOf(doc: Json, operation: Json): CurlCredential[] {
  const requirements = Array.isArray(operation.security) ? operation.security : doc.security;
  const first = Array.isArray(requirements) ? requirements.find(isObject) : undefined;
  if (first === undefined) return [];
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  return Object.keys(first).flatMap((name): CurlCredential[] => {
    const scheme = follow(doc, schemes[name]).node;
    if (!isObject(scheme)) return [];
    const type = textOf(scheme.type);
    if (type === 'http')
      return [{ kind: textOf(scheme.scheme).toLowerCase() === 'basic' ? 'basic' : 'bearer', name }];
    if (type === 'oauth2' || type === 'openIdConnect') return [{ kind: 'bearer', name }];
    if (type !== 'apiKey') return [];
    const where = textOf(scheme.in);
    const kind = where === 'query' ? 'query' : where === 'cookie' ? 'cookie' : 'header';
    return [{ kind, name: textOf(scheme.name) }];
  });
}
