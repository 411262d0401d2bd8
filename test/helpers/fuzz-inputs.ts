import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { buildZip } from './zip.ts';

/**
 * Inputs for test/fuzz.test.ts, derived from Quire's own OpenAPI document: every operation's path
 * parameters, query parameters and body schema, then mutated. Everything here is plain data, so a
 * seed reproduces a run; ids of real resources are symbolic (`ref`) and resolved when sent.
 */
export type Resource = 'version' | 'documentation' | 'page' | 'reference' | 'changelog' | 'trash' | 'webhook';

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

export interface Operation {
  id: string;
  method: string;
  /** as in the document, relative to /api/v1: `/page/{id}` */
  template: string;
  pathParams: Array<{ name: string; schema: JsonSchema; resource: Resource | null }>;
  queryParams: Array<{ name: string; schema: JsonSchema }>;
  /** content type → body schema; empty for operations without a body */
  body: Record<string, JsonSchema>;
  statuses: ReadonlySet<number>;
}

interface DocumentOperation {
  operationId?: string;
  parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>;
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, unknown>;
}

export function operationsOf(doc: { paths: Record<string, Record<string, DocumentOperation>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const segments = template.split('/');
      operations.push({
        id: op.operationId ?? `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        pathParams: params
          .filter((p) => p.in === 'path')
          .map((p) => {
            const segment = segments[segments.indexOf(`{${p.name}}`) - 1] ?? '';
            // Webhooks live under a plural path: /webhooks/{id}.
            const before = segment === 'webhooks' ? 'webhook' : segment;
            const known = ['version', 'documentation', 'page', 'reference', 'changelog', 'webhook'].includes(
              before,
            );
            return { name: p.name, schema: p.schema ?? {}, resource: known ? (before as Resource) : null };
          }),
        queryParams: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: Object.fromEntries(
          Object.entries(op.requestBody?.content ?? {}).map(([type, c]) => [type, c.schema ?? {}]),
        ),
        statuses: new Set(Object.keys(op.responses).map(Number)),
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------------
// Requests as data

export type Auth =
  | 'admin'
  | 'none'
  | 'empty'
  | 'invalid'
  | 'padded'
  | 'foreign'
  | 'read-only'
  | 'other-version'
  | 'repeated'
  | 'long';

export type PathValue = { text: string } | { ref: Resource; pick: number; foreign: boolean };

export interface Body {
  payload: string | Buffer;
  /** null: send no content-type header */
  contentType: string | null;
  /** what the body is, when its bytes do not say it at a glance */
  note?: string;
  /** set when any answer below 400 is wrong: the reason */
  mustReject?: string;
}

export interface Draft {
  /** the mutations applied, for grouping failures */
  kind: string;
  method: string;
  template: string;
  op: Operation | null;
  path: Record<string, PathValue>;
  /** raw, already encoded, without '?' */
  query: string;
  auth: Auth;
  headers: Record<string, string>;
  body?: Body;
}

/** What the generators know of the project set up before the run (slugs, titles, emails). */
export interface Known {
  slugs: string[];
  categories: string[];
  emails: string[];
  titles: string[];
  /** the query a valid request needs (GET /page names a page no other operation changes) */
  query: Record<string, string>;
  /** pages of large, pathological content, outside the pools: label → id, read once per format */
  bigPages: Record<string, number>;
}

/** ~300 KB of short blocks: a renderer that is quadratic in the number of blocks shows it here. */
export const BIG_CONTENTS: Record<string, string> = {
  'headings-300k': '## h\n'.repeat(60_000),
};

// ---------------------------------------------------------------------------------------------
// Building blocks

/** Percent-encodes every byte of the UTF-8 form but the unreserved ones (lone surrogates → U+FFFD). */
export function pctEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** JSON text that JSON.stringify cannot or should not produce: `1e400`, 5,000 nested arrays. */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
}

export function serialise(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(serialise).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${serialise(v)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const deepArray = (depth: number) =>
  new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`, `deep-array-${depth}`);
export const deepObject = (depth: number) =>
  new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, `deep-object-${depth}`);

export const INVALID_UTF8: ReadonlyArray<readonly [string, number[]]> = [
  ['0xFF', [0xff]],
  ['0xC0AF-overlong', [0xc0, 0xaf]],
  ['0xEDA080-surrogate', [0xed, 0xa0, 0x80]],
  ['0xE282-truncated', [0xe2, 0x82]],
  ['0x80-continuation', [0x80]],
  ['0xF4908080-above-max', [0xf4, 0x90, 0x80, 0x80]],
];

const MARK = 'QZXMARKXZQ';

/** The JSON text of `value` with `bytes` in the string at `field`, which must be a string field. */
export function withBytesInString(value: Record<string, unknown>, field: string, bytes: number[]): Buffer {
  const text = serialise({ ...value, [field]: `a${MARK}b` });
  const [before = '', after = ''] = text.split(MARK);
  return Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(bytes), Buffer.from(after, 'utf8')]);
}

/** A valid OpenAPI document, JSON or YAML, with `bytes` inside the string of an `x-note` extension. */
export function definitionWithBytes(bytes: number[], yaml: boolean): Buffer {
  if (!yaml) return withBytesInString(openapiDoc('Bytes', { 'x-note': '' }), 'x-note', bytes);
  const head = "openapi: 3.0.3\ninfo:\n  title: Bytes\n  version: '1'\npaths: {}\nx-note: a";
  return Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from('b\n')]);
}

export function multipartBody(
  parts: Array<{ name?: string; filename?: string; type?: string; content: string | Buffer }>,
  boundary = 'fuzzboundary',
  close = true,
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = [
      'form-data',
      ...(part.name !== undefined ? [`name="${part.name}"`] : []),
      ...(part.filename !== undefined ? [`filename="${part.filename}"`] : []),
    ].join('; ');
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${
      part.type !== undefined ? `Content-Type: ${part.type}\r\n` : ''
    }\r\n`;
    chunks.push(Buffer.from(head), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const openapiDoc = (title: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  openapi: '3.0.3',
  info: { title, version: '1.0.0' },
  paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } },
  ...extra,
});

// ---------------------------------------------------------------------------------------------
// Value lists

/** Path parameter texts, already encoded as they go on the wire. */
export const PATH_TEXTS: ReadonlyArray<readonly [string, string]> = [
  ['zero', '0'],
  ['negative', '-1'],
  ['int32-max', '2147483647'],
  ['int32-overflow', '2147483648'],
  ['int53-overflow', '9007199254740993'],
  ['huge-exponent', '1e400'],
  ['exponent', '1e3'],
  ['fraction', '1.5'],
  ['trailing-zero', '1.0'],
  ['leading-zero', '01'],
  ['hex', '0x10'],
  ['plus', '%2B1'],
  ['space', '%201'],
  ['latest', 'latest'],
  ['LATEST', 'LATEST'],
  ['null', 'null'],
  ['true', 'true'],
  ['brackets', '%5B%5D'],
  ['dots', '..'],
  ['dot', '.'],
  ['encoded-dots', '%2e%2e'],
  ['encoded-slash', '1%2F2'],
  ['traversal', '..%2F..%2Fetc%2Fpasswd'],
  ['nul', '%00'],
  ['nul-suffix', '1%00'],
  ['bad-percent', '%ZZ'],
  ['lone-percent', '%'],
  ['truncated-utf8', '%E0%A4%A'],
  ['overlong-utf8', '%C0%AF'],
  ['surrogate-utf8', '%ED%A0%80'],
  ['noncharacter', '%EF%BF%BF'],
  ['emoji', '%F0%9F%98%80'],
  ['rtl-override', '%E2%80%AE1'],
  ['empty', ''],
  ['semicolon', '1;x=y'],
  ['slug', 'getting-started'],
  ['long-101', 'a'.repeat(101)],
  ['long-digits-100', '9'.repeat(100)],
  ['long-5000', '1'.repeat(5000)],
];

/** Query values of the wrong type or shape, encoded. */
export const QUERY_TEXTS: ReadonlyArray<readonly [string, string]> = [
  ['word', 'abc'],
  ['empty', ''],
  ['negative', '-1'],
  ['zero', '0'],
  ['fraction', '1.5'],
  ['huge-exponent', '1e400'],
  ['int32-overflow', '2147483648'],
  ['digits-30', '9'.repeat(30)],
  ['true', 'true'],
  ['yes', 'yes'],
  ['null', 'null'],
  ['json', '%7B%22a%22%3A1%7D'],
  ['nul', '%00'],
  ['bad-percent', '%ZZ'],
  ['truncated-utf8', '%E0%A4%A'],
  ['surrogate-utf8', '%ED%A0%80'],
  ['plus', '+'],
  ['encoded-plus', '%2B'],
  ['latest', 'latest'],
  ['emoji', '%F0%9F%98%80'],
  ['long-10k', 'a'.repeat(10_000)],
  ['huge-300k', 'b'.repeat(300_000)],
];

const DATES = [
  '2030-01-01T00:00:00+00:00',
  '2030-01-01T00:00:00+0000',
  '2030-01-01T00:00:00Z',
  '2020-01-01T00:00:00+00:00',
  '2026-11-21T10:15:00+00:00',
  '2030-02-30T00:00:00+00:00',
  '2030-13-01T25:61:61+00:00',
  '9999-12-31T23:59:59+14:00',
  '0000-01-01T00:00:00-23:59',
  '275760-09-13T00:00:00Z',
  '2030-01-01T00:00:00+99:99',
  '2030-01-01',
  '2030-01-01 00:00:00',
  'tomorrow',
  '1e400',
  '',
];

const TEXTS = [
  '',
  ' ',
  'Ünïcödé 文字 😀',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202e\u200b\ufeff',
  '<script>alert(1)</script>',
  "'; drop table pages; --",
  '../../etc/passwd',
  '%00%2e%2e',
  '\r\n\t',
  'x'.repeat(256),
  'x'.repeat(1001),
  '😀'.repeat(300),
];

/** Darkdown fragments, including the pathological: deep quotes, plugins with broken or deep JSON. */
const DARKDOWN = [
  '# Title',
  '## Section {#custom}',
  'Plain *emph* **strong** ~~del~~ `code`',
  '- [ ] task\n- [x] done',
  '1. one\n   2. two',
  '> quote\n> > nested',
  '```js\nconst a = 1;\n```',
  '```',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '[link](https://example.com) <https://auto.example>',
  '[auto$](/guides/page-one#frag) [auto$](/nope/x) [auto$](',
  '%variable% %a.b% %%',
  '$inline[badge,Text,success] $inline[icon,fas fa-truck] $inline[key,Ctrl] $inline[glossary,API] $inline[',
  '$plugin[\n{"type":"callout","data":{"type":"info","title":"T","text":"**x** [a](b)"}}\n]$',
  '$plugin[\n{"type":"code-block","data":{"languageBlocks":[{"language":"js","code":"]$ \\u0000"}]}}\n]$',
  '$plugin[\n{"type":"table","data":{"cols":2,"rows":2,"widths":"x","contents":[["a"],["b","c","d"]]}}\n]$',
  '$plugin[\n{"type":"video","data":{"provider":"raw","videoId":"javascript:alert(1)"}}\n]$',
  '$plugin[\n{"type":"image","data":{"url":"asset:1","mode":"300","caption":{"a":1}}}\n]$\n<!-- asset:1=https://x/y.png -->',
  '$plugin[\n{"type":"tabs","data":{"tabs":[{"title":null,"content":7}]}}\n]$',
  '$plugin[\n{"type":"cards","data":{"view":"grid","cards":"x"}}\n]$',
  '$plugin[\n{"type":"accordion","data":{"title":"A","open":"yes","content":{"x":1}}}\n]$',
  '$plugin[\n{"type":"custom-html","data":{"contents":"<img src=x onerror=alert(1)><iframe src=https://evil>"}}\n]$',
  '$plugin[\n{"type":"callout","data":null}\n]$',
  '$plugin[\n{"type":\n',
  '$plugin[\n[1,2,3]\n]$',
  `$plugin[\n{"type":"callout","data":{"text":${'['.repeat(3000)}${']'.repeat(3000)}}}\n]$`,
  '<script>alert(1)</script><div onclick="x">d</div><style>*{}</style>',
  '![img](asset:99) ![x](data:text/html,hi)',
  '[^1]\n\n[^1]: note [^1]',
  '&nbsp;&#0;&#x110000;&#xD800;',
  '\u0000\ud800\r\n\t',
  `${'>'.repeat(1000)} deep quote`,
  `${'- '.repeat(500)}deep list`,
  '['.repeat(3000),
  '*_'.repeat(3000),
  '`'.repeat(2000),
];

/** A Darkdown plugin inside a plugin inside…: each level re-escapes the one inside it. */
export function nestedPlugins(depth: number): string {
  let content = 'innermost';
  for (let i = 0; i < depth; i++) {
    content = `$plugin[\n${JSON.stringify({ type: 'accordion', data: { title: `L${i}`, open: true, content } })}\n]$`;
  }
  return content;
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const weighted = <T>(...entries: Array<[number, fc.Arbitrary<T>]>): fc.Arbitrary<T> =>
  fc.oneof(...entries.map(([weight, arbitrary]) => ({ weight, arbitrary })));

const textArb = (min = 0, max = 40): fc.Arbitrary<string> =>
  weighted<string>(
    [4, fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: Math.max(max, 1) })],
    [2, fc.string({ unit: 'binary', minLength: min, maxLength: max })],
    [1, fc.constantFrom(...TEXTS)],
  );

/** Values that fit the schema most of the time, steered by field names towards real resources. */
export function valueArb(schema: JsonSchema, name: string, known: Known): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => valueArb(s, name, known)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'object': {
      const props = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valueArb(s, k, known)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      return stringArb(schema, name, known);
    case undefined:
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

function stringArb(schema: JsonSchema, name: string, known: Known): fc.Arbitrary<string> {
  const plain = schema.pattern
    ? fc.stringMatching(new RegExp(schema.pattern))
    : textArb(schema.minLength ?? 0, Math.min(schema.maxLength ?? 40, 40));
  switch (name) {
    case 'email':
      return weighted([3, fc.emailAddress()], [3, fc.constantFrom(...known.emails)], [1, plain]);
    case 'expiresAt':
    case 'max_date':
      return weighted([4, fc.constantFrom(...DATES)], [1, plain]);
    case 'slug':
    case 'version_slug':
    case 'documentation_slug':
    case 'page_slug':
      return weighted([3, fc.constantFrom(...known.slugs)], [2, plain]);
    case 'categoryTitle':
      return weighted([3, fc.constantFrom(...known.categories)], [1, plain]);
    case 'url':
      return weighted(
        [3, fc.webUrl({ withQueryParameters: true })],
        [1, fc.constantFrom('http://127.0.0.1/', 'http://localhost/x', 'http://[::1]/', 'ftp://a.example/')],
        [1, plain],
      );
    case 'title':
    case 'name':
      return weighted([1, fc.constantFrom(...known.titles)], [4, plain]);
    case 'content':
      return weighted<string>(
        [4, fc.array(fc.constantFrom(...DARKDOWN), { maxLength: 10 }).map((parts) => parts.join('\n\n'))],
        [1, fc.integer({ min: 1, max: 12 }).map(nestedPlugins)],
        [1, plain],
      );
    case 'cursor':
      return weighted<string>(
        [2, fc.constantFrom(...CURSOR_NUMBERS).map((n) => b64(`before:${n}`))],
        [2, fc.bigInt({ min: 0n, max: 9_999_999_999n }).map((n) => b64(`before:${n}`))],
        [1, fc.string().map(b64)],
        [1, plain],
      );
    default:
      return plain;
  }
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** Around the integer limits of the id columns: a cursor is `before:<id>` in base64url. */
const CURSOR_NUMBERS = [
  '0',
  '1',
  '2147483647',
  '2147483648',
  '4294967296',
  '9999999999',
  '99999999999',
  '-1',
];

/** Values of the right shape for parameters whose meaning the generic lists miss. */
const NAMED_QUERY_VALUES: Record<string, string[]> = {
  cursor: [...CURSOR_NUMBERS.map((n) => b64(`before:${n}`)), b64('before:'), b64('after:1'), 'not-base64!'],
  max_date: DATES.map(pctEncode),
  scopes: ['content%2Cusers', 'nope', '%2C%2C', Array(21).fill('content').join('%2C'), 'CONTENT'],
  'scopes[]': ['content', 'nope', Array(21).fill('users').join('%2C')],
  version_id: ['latest', '1', '0', '9999999999', '99999999999'],
};

/** Values meant to break a field: wrong types, limits, JSON only text can carry, deep nesting. */
export const NASTY_VALUES: ReadonlyArray<readonly [string, unknown]> = [
  ['null', null],
  ['number', 0],
  ['boolean', true],
  ['array', []],
  ['object', {}],
  ['string-nul', 'a\u0000b'],
  ['lone-surrogate', '\ud800'],
  ['reversed-surrogates', '\udc00\ud800'],
  ['long-1001', 'x'.repeat(1001)],
  ['long-100k', 'y'.repeat(100_000)],
  ['huge-exponent', new RawJson('1e400', 'huge-exponent')],
  ['negative-huge-exponent', new RawJson('-1e400', 'negative-huge-exponent')],
  ['bigint', new RawJson('123456789012345678901234567890', 'bigint')],
  ['max-double', 1.7976931348623157e308],
  ['negative-zero', new RawJson('-0', 'negative-zero')],
  ['deep-array-2000', deepArray(2000)],
  ['deep-object-2000', deepObject(2000)],
  ['deep-array-5000', deepArray(5000)],
  ['nested-json', { a: [{ b: { c: [1, 'x', null] } }] }],
];

const nastyValueArb: fc.Arbitrary<[string, unknown]> = weighted<[string, unknown]>(
  [4, fc.constantFrom(...NASTY_VALUES).map(([l, v]): [string, unknown] => [l, v])],
  [2, fc.jsonValue({ maxDepth: 2 }).map((v): [string, unknown] => ['random-json', v])],
  [2, textArb(0, 60).map((v): [string, unknown] => ['random-text', v])],
  [1, fc.integer({ min: 1000, max: 150_000 }).map((n): [string, unknown] => ['long-é', 'é'.repeat(n)])],
  [1, fc.integer({ min: 100, max: 20_000 }).map((d): [string, unknown] => [`deep-array`, deepArray(d)])],
  [1, fc.integer({ min: 100, max: 20_000 }).map((d): [string, unknown] => [`deep-object`, deepObject(d)])],
);

const WEIRD_BODIES: ReadonlyArray<readonly [string, string]> = [
  ['empty', ''],
  ['whitespace', ' \n\t '],
  ['null', 'null'],
  ['true', 'true'],
  ['number', '0'],
  ['huge-exponent', '1e400'],
  ['string', '"x"'],
  ['array', '[]'],
  ['array-of-object', '[{}]'],
  ['object', '{}'],
  ['two-documents', '{"a":1}{"b":2}'],
  ['NaN', 'NaN'],
  ['single-quotes', "{'title':'x'}"],
  ['trailing-comma', '{"title":"x",}'],
  ['comment', '{/* c */"title":"x"}'],
  ['proto', '{"__proto__":{"polluted":1},"title":"x","content":"y","email":"a@b.c"}'],
  ['constructor', '{"constructor":{"prototype":{"polluted":1}},"title":"x","content":"y"}'],
  ['bom', '\ufeff{"title":"x","content":"y"}'],
  ['duplicate-keys', '{"title":"a","title":{"x":1},"content":"y"}'],
  ['escaped-nul-key', '{"\\u0000":1,"title":"x","content":"y"}'],
  ['lone-surrogate-escape', '{"title":"\\ud800","content":"\\udfff","name":"\\ud800","email":"\\ud800@x.y"}'],
  ['unterminated', '{"title":"x'],
  ['deep-array-2000', deepArray(2000).text],
  ['deep-object-2000', deepObject(2000).text],
  ['deep-array-5000', deepArray(5000).text],
  ['deep-object-5000', deepObject(5000).text],
  ['deep-array-100000', deepArray(100_000).text],
];

const TEXT_MUTATIONS: ReadonlyArray<readonly [string, (text: string, at: number) => string]> = [
  ['truncated', (t, at) => t.slice(0, at % Math.max(1, t.length))],
  ['inserted-quote', (t, at) => `${t.slice(0, at % (t.length + 1))}"${t.slice(at % (t.length + 1))}`],
  ['inserted-backslash', (t, at) => `${t.slice(0, at % (t.length + 1))}\\${t.slice(at % (t.length + 1))}`],
  ['inserted-brace', (t, at) => `${t.slice(0, at % (t.length + 1))}}${t.slice(at % (t.length + 1))}`],
  ['raw-control-char', (t, at) => `${t.slice(0, at % (t.length + 1))}\u0001${t.slice(at % (t.length + 1))}`],
  ['bom', (t) => `\ufeff${t}`],
  ['trailing-garbage', (t) => `${t}}{`],
];

/** Bodies for a JSON operation: valid, value-mutated, text-mutated, odd documents, bad bytes. */
export function jsonBodyArb(schema: JsonSchema, known: Known): fc.Arbitrary<[string, Body]> {
  const valid = valueArb(schema, 'body', known).map((v) => (isRecord(v) ? v : {}));
  const fields = [...Object.keys(schema.properties ?? {}), 'unknown', '__proto__', 'constructor', ''];
  const stringFields = Object.entries(schema.properties ?? {})
    .filter(([, s]) => s.type === 'string' || s.anyOf?.some((a) => a.type === 'string'))
    .map(([k]) => k);
  const mutation = fc.tuple(fc.constantFrom(...fields), fc.boolean(), nastyValueArb);
  const json = (payload: string | Buffer, extra: Partial<Body> = {}): Body => ({
    payload,
    contentType: 'application/json',
    ...extra,
  });
  return weighted<[string, Body]>(
    [3, valid.map((v): [string, Body] => ['valid', json(serialise(v))])],
    [
      5,
      fc.tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([v, muts]): [string, Body] => {
        const out: Record<string, unknown> = { ...v };
        const labels: string[] = [];
        for (const [field, remove, [label, value]] of muts) {
          if (remove) delete out[field];
          else
            Object.defineProperty(out, field, {
              value,
              enumerable: true,
              writable: true,
              configurable: true,
            });
          labels.push(remove ? `drop(${field})` : `set(${field}=${label})`);
        }
        return [labels.join(','), json(serialise(out))];
      }),
    ],
    [
      2,
      fc
        .tuple(valid, fc.constantFrom(...TEXT_MUTATIONS), fc.nat())
        .map(([v, [label, mutate], at]): [string, Body] => [`text:${label}`, json(mutate(serialise(v), at))]),
    ],
    [
      1,
      fc.constantFrom(...WEIRD_BODIES).map(([label, text]): [string, Body] => [`doc:${label}`, json(text)]),
    ],
    [1, fc.jsonValue().map((v): [string, Body] => ['random-json', json(JSON.stringify(v))])],
    [
      1,
      fc
        .uint8Array({ maxLength: 200 })
        .map((bytes): [string, Body] => ['random-bytes', json(Buffer.from(bytes), { note: 'random bytes' })]),
    ],
    ...(stringFields.length === 0
      ? []
      : [
          [
            2,
            fc
              .tuple(valid, fc.constantFrom(...stringFields), fc.constantFrom(...INVALID_UTF8))
              .map(([v, field, [label, bytes]]): [string, Body] => [
                `invalid-utf8(${label}@${field})`,
                json(withBytesInString(v, field, bytes), {
                  note: `JSON with the bytes ${label} inside the string ${field}`,
                  mustReject: 'invalid UTF-8 in a JSON body',
                }),
              ]),
          ] as [number, fc.Arbitrary<[string, Body]>],
        ]),
  );
}

const PETS = { '/pets': { get: { responses: { '200': { description: 'ok' } } } } };

/** OpenAPI documents, mostly valid, some broken or hostile (external refs, deep nesting, bombs). */
export const HOSTILE_DEFINITIONS: ReadonlyArray<readonly [string, string]> = [
  [
    'external-ref-http',
    serialise(openapiDoc('Ext', { paths: { '/a': { $ref: 'http://127.0.0.1:9/x.json' } } })),
  ],
  ['external-ref-file', serialise(openapiDoc('File', { paths: { '/a': { $ref: 'file:///etc/passwd' } } }))],
  [
    'circular-ref',
    serialise(
      openapiDoc('Circle', {
        components: {
          schemas: { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } },
        },
      }),
    ),
  ],
  ['dangling-ref', serialise(openapiDoc('Dangling', { paths: { '/a': { $ref: '#/nope/nothing' } } }))],
  ['swagger-2', serialise({ swagger: '2.0', info: { title: 'Sw', version: '1' }, paths: PETS })],
  ['openapi-4', serialise({ openapi: '4.0.0', info: { title: 'Four', version: '1' }, paths: PETS })],
  ['paths-array', serialise(openapiDoc('Arr', { paths: [1, 2] }))],
  ['info-missing', serialise({ openapi: '3.0.3', paths: PETS })],
  ['title-object', serialise(openapiDoc({ a: 1 }))],
  ['title-long', serialise(openapiDoc('T'.repeat(10_000)))],
  ['title-nul', serialise(openapiDoc('a\u0000b'))],
  ['title-surrogate', serialise(openapiDoc('\ud800'))],
  ['title-empty', serialise(openapiDoc(''))],
  ['deep-array-5000', serialise(openapiDoc('Deep', { 'x-deep': deepArray(5000) }))],
  ['deep-object-5000', serialise(openapiDoc('DeepObj', { 'x-deep': deepObject(5000) }))],
  [
    'many-paths',
    serialise(openapiDoc('Many', { paths: Object.fromEntries(range(3000).map((i) => [`/p${i}`, {}])) })),
  ],
  [
    'yaml-deep-flow',
    `openapi: 3.0.3\ninfo: {title: DeepY, version: '1'}\npaths: {}\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n`,
  ],
  ['yaml-alias-bomb', yamlBomb()],
  ['yaml-tags', "openapi: 3.0.3\ninfo: {title: !!binary aGk=, version: !!js/function 'f(){}'}\npaths: {}\n"],
  ['yaml-duplicate-keys', "openapi: 3.0.3\ninfo: {title: A, title: B, version: '1'}\npaths: {}\n"],
  ['yaml-nul', 'openapi: 3.0.3\ninfo: {title: "a\\0b", version: \'1\'}\npaths: {}\n'],
  ['yaml-multi-doc', "openapi: 3.0.3\ninfo: {title: Multi, version: '1'}\npaths: {}\n---\nb: 2\n"],
  ['not-a-definition', 'hello: world\n'],
  ['scalar', '42'],
  ['empty', ''],
];

function yamlBomb(): string {
  const lines = [
    "openapi: 3.0.3\ninfo: {title: Bomb, version: '1'}\npaths: {}",
    'a: &a ["x","x","x","x","x","x","x","x"]',
  ];
  for (let i = 1; i < 12; i++)
    lines.push(
      `${'a'.repeat(i + 1)}: &${'a'.repeat(i + 1)} [${Array(8)
        .fill(`*${'a'.repeat(i)}`)
        .join(',')}]`,
    );
  return `${lines.join('\n')}\n`;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

const definitionArb: fc.Arbitrary<[string, Record<string, unknown>]> = weighted<
  [string, Record<string, unknown>]
>(
  [4, textArb(1, 40).map((t): [string, Record<string, unknown>] => ['valid', openapiDoc(t)])],
  [
    2,
    fc
      .record(
        {
          openapi: fc.constantFrom<unknown>('3.0.3', '3.1.0', '3.0.0', '2.0', '4.0.0', 3, ''),
          swagger: fc.constantFrom<unknown>('2.0', '1.2'),
          info: fc.record({ title: fc.jsonValue({ maxDepth: 1 }), version: fc.jsonValue({ maxDepth: 1 }) }),
          paths: fc.oneof(fc.constant<unknown>(PETS), fc.jsonValue({ maxDepth: 3 })),
          components: fc.jsonValue({ maxDepth: 3 }),
        },
        { requiredKeys: [] },
      )
      .map((d): [string, Record<string, unknown>] => ['random-definition', d]),
  ],
);

/** Bodies of the reference upload: multipart or raw JSON/YAML, valid or hostile. */
export function uploadBodyArb(): fc.Arbitrary<[string, Body]> {
  const asBody = (
    label: string,
    text: string | Buffer,
    wrap: number,
    extra: Partial<Body> = {},
  ): [string, Body] => {
    switch (wrap % 5) {
      case 0:
      case 1:
        return [
          `multipart:${label}`,
          {
            payload: multipartBody([{ name: 'file', filename: 'openapi.json', content: text }]),
            contentType: 'multipart/form-data; boundary=fuzzboundary',
            ...extra,
          },
        ];
      case 2:
        return [`raw-json:${label}`, { payload: text, contentType: 'application/json', ...extra }];
      case 3:
        return [`raw-yaml:${label}`, { payload: text, contentType: 'application/yaml', ...extra }];
      default:
        return [`text-yaml:${label}`, { payload: text, contentType: 'text/yaml', ...extra }];
    }
  };
  return weighted<[string, Body]>(
    [4, fc.tuple(definitionArb, fc.nat()).map(([[label, doc], wrap]) => asBody(label, serialise(doc), wrap))],
    [
      2,
      fc
        .tuple(definitionArb, fc.nat())
        .map(([[label, doc], wrap]) => asBody(`yaml-${label}`, toYaml(doc), wrap)),
    ],
    [
      2,
      fc
        .tuple(fc.constantFrom(...HOSTILE_DEFINITIONS), fc.nat())
        .map(([[label, text], wrap]) => asBody(label, text, wrap)),
    ],
    [
      1,
      fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([[label, bytes], wrap]) =>
        asBody(`invalid-utf8(${label})`, definitionWithBytes(bytes, wrap % 2 === 0), wrap, {
          note: `a valid OpenAPI document with the bytes ${label} inside the string x-note`,
          mustReject: 'invalid UTF-8 in a definition',
        }),
      ),
    ],
    [
      1,
      fc.tuple(fc.jsonValue(), fc.nat()).map(([v, wrap]) => asBody('random-json', JSON.stringify(v), wrap)),
    ],
    [
      1,
      fc
        .tuple(fc.uint8Array({ maxLength: 300 }), fc.nat())
        .map(([b, wrap]) => asBody('random-bytes', Buffer.from(b), wrap, { note: 'random bytes' })),
    ],
  );
}

export const CONTENT_TYPES: readonly string[] = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;',
  'application/json ; foo=bar',
  'application/jsonx',
  'application/json-patch+json',
  'application/vnd.api+json',
  'text/json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/yaml',
  'text/yaml',
  'application/xml',
  '*/*',
  'application/*',
  ' ',
  ';',
  'application',
  'invalid type',
  'application/json, text/plain',
];

export const EXTRA_HEADERS: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ['origin', { origin: 'https://evil.example' }],
  ['origin-null', { origin: 'null' }],
  ['request-id-long', { 'x-request-id': 'r'.repeat(5000) }],
  ['request-id-invalid', { 'x-request-id': 'a b<c>"d' }],
  ['request-id-valid', { 'x-request-id': 'fuzz-request-1' }],
  ['accept-xml', { accept: 'application/xml' }],
  ['accept-none', { accept: 'text/html;q=0, application/json;q=0' }],
  ['content-encoding-gzip', { 'content-encoding': 'gzip' }],
  ['method-override', { 'x-http-method-override': 'DELETE' }],
  ['forwarded-for', { 'x-forwarded-for': '1.2.3.4, garbage, ::1' }],
  ['host-odd', { host: 'evil.example:99999' }],
  ['expect-continue', { expect: '100-continue' }],
  ['many-x-headers', Object.fromEntries(range(200).map((i) => [`x-fuzz-${i}`, 'v'.repeat(20)]))],
];

export const AUTHS: readonly Auth[] = [
  'none',
  'empty',
  'invalid',
  'padded',
  'foreign',
  'read-only',
  'other-version',
  'repeated',
  'long',
];

// ---------------------------------------------------------------------------------------------
// Whole requests

export function pathValueArb(param: Operation['pathParams'][number]): fc.Arbitrary<[string, PathValue]> {
  const ref = (foreign: boolean) =>
    fc
      .nat({ max: 50 })
      .map((pick): [string, PathValue] => [
        foreign ? 'foreign-id' : 'real-id',
        { ref: param.resource ?? 'page', pick, foreign },
      ]);
  return weighted<[string, PathValue]>(
    [10, ref(false)],
    [1, ref(true)],
    [3, fc.constantFrom(...PATH_TEXTS).map(([label, text]): [string, PathValue] => [label, { text }])],
    [
      1,
      fc
        .integer({ min: -5, max: 3_000_000_000 })
        .map((n): [string, PathValue] => ['random-int', { text: String(n) }]),
    ],
    [
      1,
      fc
        .string({ unit: 'binary', maxLength: 30 })
        .map((s): [string, PathValue] => ['random-unicode', { text: pctEncode(s) }]),
    ],
  );
}

function queryValueArb(
  param: Operation['queryParams'][number],
  known: Known,
): fc.Arbitrary<[string, string]> {
  const s = param.schema;
  const validText = (schema: JsonSchema): fc.Arbitrary<string> =>
    valueArb(schema, param.name, known).map((v) => pctEncode(typeof v === 'string' ? v : JSON.stringify(v)));
  const valid =
    param.name === 'scopes' || param.name === 'scopes[]'
      ? fc
          .array(fc.constantFrom('content', 'users', 'hosting', 'security', 'plan', 'other', 'nope', ''), {
            minLength: 1,
            maxLength: 4,
          })
          .map((a) => a.join(','))
      : validText(s);
  return weighted<[string, string]>(
    [6, valid.map((v): [string, string] => ['valid', v])],
    [3, fc.constantFrom(...QUERY_TEXTS).map(([l, v]): [string, string] => [l, v])],
    [1, fc.string({ unit: 'binary', maxLength: 30 }).map((v): [string, string] => ['random', pctEncode(v)])],
  );
}

const UNKNOWN_NAMES = [
  'foo',
  '__proto__',
  'constructor',
  'a[b]',
  'a[]',
  '',
  '%00',
  'x'.repeat(500),
  'format[]',
  'id',
];

export function baselineQuery(op: Operation, known: Known, except?: string): Array<[string, string]> {
  return op.queryParams
    .filter((p) => p.name in known.query && p.name !== except)
    .map((p): [string, string] => [p.name, known.query[p.name] ?? '']);
}

export const joinQuery = (pairs: Array<[string, string]>) =>
  pairs.map(([k, v]) => `${pctEncode(k)}=${v}`).join('&');

export function queryArb(op: Operation, known: Known): fc.Arbitrary<[string, string]> {
  const declared = op.queryParams.map((p) =>
    queryValueArb(p, known).map(([label, v]): [string, string, string] => [`${p.name}=${label}`, p.name, v]),
  );
  const unknown = fc
    .tuple(fc.constantFrom(...UNKNOWN_NAMES), fc.constantFrom(...QUERY_TEXTS))
    .map(([name, [label, v]]): [string, string, string] => [
      `unknown(${name.slice(0, 12)})=${label}`,
      name,
      v,
    ]);
  const pair =
    declared.length > 0
      ? weighted<[string, string, string]>([8, fc.oneof(...declared)], [1, unknown])
      : unknown;
  const pairs = fc.array(pair, { maxLength: declared.length > 0 ? 4 : 2 });
  // Mostly the valid query with some parameters replaced or added, so mutations reach the handler.
  return fc.tuple(fc.nat({ max: 3 }), pairs).map(([fromBaseline, chosen]): [string, string] => {
    const out: Array<[string, string]> = fromBaseline > 0 ? baselineQuery(op, known) : [];
    for (const [, name, value] of chosen) {
      const at = out.findIndex(([k]) => k === name);
      if (at >= 0) out[at] = [name, value];
      else out.push([name, value]);
    }
    return [chosen.map(([label]) => label).join('&'), joinQuery(out)];
  });
}

export function randomDraftArb(op: Operation, known: Known): fc.Arbitrary<Draft> {
  const path = fc.tuple(
    ...op.pathParams.map((p) => pathValueArb(p).map(([l, v]): [string, string, PathValue] => [p.name, l, v])),
  );
  const jsonSchema = op.body['application/json'];
  const body: fc.Arbitrary<[string, Body] | null> =
    op.id === 'uploadReference'
      ? uploadBodyArb()
      : jsonSchema !== undefined
        ? jsonBodyArb(jsonSchema, known)
        : weighted<[string, Body] | null>(
            [6, fc.constant(null)],
            [
              1,
              fc
                .constantFrom(...WEIRD_BODIES)
                .map(([l, t]): [string, Body] => [
                  `doc:${l}`,
                  { payload: t, contentType: 'application/json' },
                ]),
            ],
            [
              1,
              fc
                .tuple(fc.constantFrom(...CONTENT_TYPES), fc.string())
                .map(([type, t]): [string, Body] => [`typed:${type}`, { payload: t, contentType: type }]),
            ],
          );
  const auth = weighted<Auth>([30, fc.constant<Auth>('admin')], [3, fc.constantFrom(...AUTHS)]);
  const contentType = weighted<string | null>(
    [12, fc.constant(null)],
    [2, fc.constantFrom(...CONTENT_TYPES)],
    [1, fc.constant('')],
  );
  const extra = weighted<readonly [string, Record<string, string>] | null>(
    [12, fc.constant(null)],
    [1, fc.constantFrom(...EXTRA_HEADERS)],
  );
  return fc.record({ path, query: queryArb(op, known), body, auth, contentType, extra }).map((r) => {
    const labels = [
      ...r.path.map(([name, label]) => `path(${name})=${label}`),
      ...(r.query[0] ? [`query(${r.query[0]})`] : []),
      ...(r.body ? [`body=${r.body[0]}`] : []),
      ...(r.auth !== 'admin' ? [`auth=${r.auth}`] : []),
      ...(r.contentType !== null && r.body ? [`content-type=${r.contentType}`] : []),
      ...(r.extra ? [`header=${r.extra[0]}`] : []),
    ];
    const sentBody = r.body
      ? {
          ...r.body[1],
          ...(r.contentType !== null ? { contentType: r.contentType, mustReject: undefined } : {}),
        }
      : undefined;
    return {
      kind: `random: ${labels.join(' ')}`,
      method: op.method,
      template: op.template,
      op,
      path: Object.fromEntries(r.path.map(([name, , v]) => [name, v])),
      query: r.query[1],
      auth: r.auth,
      headers: { ...(r.extra?.[1] ?? {}) },
      ...(sentBody ? { body: sentBody } : {}),
    };
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Systematic cases: every mutation family applied once to a valid request of every operation

const MIB = 1024 * 1024;

function simpleValue(schema: JsonSchema, name: string, known: Known): unknown {
  if (schema.anyOf?.[0]) return simpleValue(schema.anyOf[0], name, known);
  const byName: Record<string, unknown> = {
    email: 'baseline@example.com',
    expiresAt: '2030-01-01T00:00:00+00:00',
    categoryTitle: known.categories[0],
    content: '# Baseline\n\nSome *text*.',
    title: 'Fuzz baseline',
    name: 'v1',
    message: 'fuzz',
    url: 'https://hooks.example.test/fuzz',
    events: ['page.created'],
  };
  if (name in byName) return byName[name];
  if (schema.type === 'boolean') return true;
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  return 'fuzz';
}

/** A body the operation accepts: required fields plus the optional ones that need no uniqueness. */
export function baselineBody(op: Operation, known: Known): Body | undefined {
  if (op.id === 'uploadReference') {
    return {
      payload: multipartBody([
        { name: 'file', filename: 'openapi.json', content: serialise(openapiDoc('Fuzz Baseline')) },
      ]),
      contentType: 'multipart/form-data; boundary=fuzzboundary',
    };
  }
  if (op.id === 'importProject') {
    return {
      payload: multipartBody([
        {
          name: 'file',
          filename: 'export.zip',
          type: 'application/zip',
          content: buildZip([
            { name: 'Fuzz/Section/1 Page.md', data: '---\ntitle: Page\n---draft\n\nBody\n' },
          ]),
        },
      ]),
      contentType: 'multipart/form-data; boundary=fuzzboundary',
    };
  }
  const schema = op.body['application/json'];
  if (schema === undefined) return undefined;
  const props = schema.properties ?? {};
  const required = schema.required ?? [];
  const names = Object.keys(props).filter((k) =>
    required.length > 0
      ? required.includes(k) || ['categoryTitle', 'message', 'expiresAt'].includes(k)
      : k !== 'slug',
  );
  const value = Object.fromEntries(names.map((k) => [k, simpleValue(props[k] ?? {}, k, known)]));
  return { payload: serialise(value), contentType: 'application/json' };
}

function baselineObject(op: Operation, known: Known): Record<string, unknown> {
  const body = baselineBody(op, known);
  return body && typeof body.payload === 'string'
    ? (JSON.parse(body.payload) as Record<string, unknown>)
    : {};
}

/** A request the operation answers with 2xx: real ids, the query it needs, a valid body. */
export function baselineDraft(op: Operation, known: Known): Draft {
  const body = baselineBody(op, known);
  return {
    kind: 'baseline',
    method: op.method,
    template: op.template,
    op,
    // A delete takes the second of its pool (an unpublished version, an empty section): the first is
    // what every other operation works on.
    path: Object.fromEntries(
      op.pathParams.map((p) => [
        p.name,
        {
          // A restore needs a deleted page: the world keeps one aside.
          ref: op.id === 'restorePage' ? 'trash' : (p.resource ?? 'page'),
          pick: op.method === 'DELETE' ? 1 : 0,
          foreign: false,
        },
      ]),
    ),
    query: joinQuery(baselineQuery(op, known)),
    auth: 'admin',
    headers: {},
    ...(body ? { body } : {}),
  };
}

export function systematicDrafts(op: Operation, known: Known): Draft[] {
  const base = baselineDraft(op, known);
  const realPath = base.path;
  const baseline = base.body;
  const drafts: Draft[] = [];
  const add = (kind: string, over: Partial<Draft> = {}) => drafts.push({ ...base, kind, ...over });

  add('baseline');
  const formats = op.queryParams.find((q) => q.name === 'format')?.schema.enum ?? [];
  if (op.method === 'GET' && op.pathParams[0]?.resource === 'page') {
    for (const [label, id] of Object.entries(known.bigPages)) {
      for (const format of formats) {
        add(`big page ${label} format=${String(format)}`, {
          path: { [op.pathParams[0].name]: { text: String(id) } },
          query: `format=${String(format)}`,
        });
      }
    }
  }
  for (const p of op.pathParams) {
    for (const [label, text] of PATH_TEXTS)
      add(`path(${p.name})=${label}`, { path: { ...realPath, [p.name]: { text } } });
    for (const pick of [1, 2, 3]) {
      add(`path(${p.name})=real-id`, {
        path: { ...realPath, [p.name]: { ref: p.resource ?? 'page', pick, foreign: false } },
      });
    }
    add(`path(${p.name})=foreign-id`, {
      path: { ...realPath, [p.name]: { ref: p.resource ?? 'page', pick: 0, foreign: true } },
    });
  }

  for (const q of op.queryParams) {
    const name = pctEncode(q.name);
    const values: Array<readonly [string, string]> = [
      ...QUERY_TEXTS,
      ...(q.schema.enum ?? q.schema.anyOf?.flatMap((a) => a.enum ?? []) ?? []).map(
        (v) => ['enum', String(v)] as const,
      ),
      ...(NAMED_QUERY_VALUES[q.name] ?? []).map((v) => [`named:${v.slice(0, 24)}`, v] as const),
    ];
    const rest = joinQuery(baselineQuery(op, known, q.name));
    const withRest = (query: string) => ({ query: rest ? `${rest}&${query}` : query });
    for (const [label, v] of values) add(`query(${q.name}=${label})`, withRest(`${name}=${v}`));
    add(`query(${q.name} repeated)`, withRest(`${name}=a&${name}=b&${name}=1`));
    add(`query(${q.name} array-syntax)`, withRest(`${name}[]=1&${name}[0]=2`));
    add(`query(${q.name} no-value)`, withRest(name));
  }
  for (const name of UNKNOWN_NAMES)
    add(`query(unknown ${name.slice(0, 12)})`, { query: `${pctEncode(name)}=1` });
  add('query(5000 params)', {
    query: range(5000)
      .map((i) => `p${i}=${i}`)
      .join('&'),
  });
  add('query(separators only)', { query: '&&=&=' });
  add('query(bad percent in name)', { query: '%ZZ=1&%E0%A4%A=2' });
  add('query(huge 256 KiB)', { query: `x=${'q'.repeat(256 * 1024)}` });

  for (const auth of AUTHS) add(`auth=${auth}`, { auth });
  const sample = baseline?.payload ?? '{}';
  for (const type of CONTENT_TYPES)
    add(`content-type=${type}`, { body: { payload: sample, contentType: type } });
  add('content-type=none', { body: { payload: sample, contentType: null } });
  add('body=empty json', { body: { payload: '', contentType: 'application/json' } });
  add('body=none', { body: undefined });
  for (const [label, headers] of EXTRA_HEADERS) add(`header=${label}`, { headers });
  const length = Buffer.byteLength(sample);
  add('content-length=short', { headers: { 'content-length': String(Math.max(0, length - 1)) } });
  add('content-length=long', { headers: { 'content-length': String(length + 10) } });
  add('content-length=garbage', { headers: { 'content-length': 'abc' } });

  const schema = op.body['application/json'];
  if (op.id === 'uploadReference') uploadDrafts(add);
  else if (schema !== undefined) jsonDrafts(schema, baselineObject(op, known), add);
  else {
    for (const [label, text] of WEIRD_BODIES)
      add(`body=${label}`, { body: { payload: text, contentType: 'application/json' } });
    add('body=over 5 MiB json', {
      body: {
        payload: '"'.padEnd(5 * MIB + 1, 'x'),
        contentType: 'application/json',
        note: '5 MiB + 1 bytes',
      },
    });
    add('body=over 5 MiB text', {
      body: { payload: 'x'.repeat(5 * MIB + 1), contentType: 'text/plain', note: '5 MiB + 1 bytes' },
    });
  }
  return drafts;
}

type Add = (kind: string, over?: Partial<Draft>) => void;

function jsonDrafts(schema: JsonSchema, valid: Record<string, unknown>, add: Add): void {
  const json = (payload: string | Buffer, extra: Partial<Body> = {}): Partial<Draft> => ({
    body: { payload, contentType: 'application/json', ...extra },
  });
  const fields = [...Object.keys(schema.properties ?? {}), 'unknown', '__proto__'];
  for (const field of schema.required ?? []) {
    const { [field]: _dropped, ...rest } = valid;
    add(`body drop(${field})`, json(serialise(rest)));
  }
  for (const field of fields) {
    for (const [label, value] of NASTY_VALUES) {
      const out = { ...valid };
      Object.defineProperty(out, field, { value, enumerable: true, writable: true, configurable: true });
      add(`body set(${field}=${label})`, json(serialise(out)));
    }
  }
  for (const [label, text] of WEIRD_BODIES) add(`body=${label}`, json(text));
  const stringField = Object.keys(schema.properties ?? {}).find(
    (k) => schema.properties?.[k]?.type === 'string' || schema.properties?.[k]?.anyOf,
  );
  for (const [label, bytes] of INVALID_UTF8) {
    if (stringField !== undefined) {
      add(
        `body invalid-utf8(${label}) in a string`,
        json(withBytesInString(valid, stringField, bytes), {
          note: `${serialise(valid)} with the bytes ${label} inside the string ${stringField}`,
          mustReject: 'invalid UTF-8 in a JSON body',
        }),
      );
    }
    add(
      `body invalid-utf8(${label}) between tokens`,
      json(Buffer.concat([Buffer.from(serialise(valid)), Buffer.from(bytes)])),
    );
  }
  add(
    'body=over 5 MiB',
    json(serialise({ ...valid, content: 'x'.repeat(5 * MIB) }), { note: 'content of 5 MiB' }),
  );
  add(
    'body=content over maxLength',
    json(serialise({ ...valid, content: 'x'.repeat(4_000_001) }), { note: 'content of 4,000,001 chars' }),
  );
}

function uploadDrafts(add: Add): void {
  const multipart = (
    parts: Parameters<typeof multipartBody>[0],
    boundary = 'fuzzboundary',
    close = true,
    type?: string,
  ): Partial<Draft> => ({
    body: {
      payload: multipartBody(parts, boundary, close),
      contentType: type ?? `multipart/form-data; boundary=${boundary}`,
    },
  });
  const doc = serialise(openapiDoc('Upload'));
  for (const [label, text] of HOSTILE_DEFINITIONS) {
    add(`upload multipart ${label}`, multipart([{ name: 'file', filename: 'openapi.json', content: text }]));
    add(`upload raw-json ${label}`, { body: { payload: text, contentType: 'application/json' } });
    add(`upload raw-yaml ${label}`, { body: { payload: text, contentType: 'application/yaml' } });
  }
  for (const [label, bytes] of INVALID_UTF8) {
    const payload = definitionWithBytes(bytes, false);
    const note = `a valid OpenAPI document with the bytes ${label} inside the string x-note`;
    const extra = { note, mustReject: 'invalid UTF-8 in a definition' };
    add(`upload raw-json invalid-utf8(${label})`, {
      body: { payload, contentType: 'application/json', ...extra },
    });
    add(`upload raw-yaml invalid-utf8(${label})`, {
      body: { payload: definitionWithBytes(bytes, true), contentType: 'application/yaml', ...extra },
    });
    add(`upload multipart invalid-utf8(${label})`, {
      body: {
        ...(multipart([{ name: 'file', filename: 'o.json', content: payload }]).body as Body),
        ...extra,
      },
    });
  }
  add(
    'upload multipart no boundary',
    multipart([{ name: 'file', filename: 'o.json', content: doc }], 'b', true, 'multipart/form-data'),
  );
  add(
    'upload multipart wrong boundary',
    multipart(
      [{ name: 'file', filename: 'o.json', content: doc }],
      'b',
      true,
      'multipart/form-data; boundary=other',
    ),
  );
  add(
    'upload multipart unterminated',
    multipart([{ name: 'file', filename: 'o.json', content: doc }], 'b', false),
  );
  add('upload multipart field not file', multipart([{ name: 'file', content: doc }]));
  add(
    'upload multipart wrong field name',
    multipart([{ name: 'definition', filename: 'o.json', content: doc }]),
  );
  add('upload multipart no name', multipart([{ filename: 'o.json', content: doc }]));
  add(
    'upload multipart two files',
    multipart([
      { name: 'file', filename: 'a.json', content: doc },
      { name: 'file', filename: 'b.json', content: '{' },
    ]),
  );
  add('upload multipart 25 parts', multipart(range(25).map((i) => ({ name: `f${i}`, content: 'x' }))));
  add('upload multipart empty file', multipart([{ name: 'file', filename: 'o.json', content: '' }]));
  add(
    'upload multipart hostile filename',
    multipart([{ name: 'file', filename: '../../etc/passwd\u0000.yaml', type: 'text/x-evil', content: doc }]),
  );
  add('upload multipart over 8 MiB', {
    ...multipart([{ name: 'file', filename: 'o.json', content: `${doc}${' '.repeat(8 * MIB)}` }]),
  });
  add('upload raw over 8 MiB', {
    body: {
      payload: `${doc}${' '.repeat(8 * MIB)}`,
      contentType: 'application/json',
      note: 'a definition padded to 8 MiB + spaces',
    },
  });
  add('upload empty multipart', {
    body: { payload: '', contentType: 'multipart/form-data; boundary=fuzzboundary' },
  });
  add('upload garbage multipart', {
    body: {
      payload: '--fuzzboundary\r\nxx\r\n\r\n',
      contentType: 'multipart/form-data; boundary=fuzzboundary',
    },
  });
}
