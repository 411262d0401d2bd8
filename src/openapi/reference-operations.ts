import { utf8Text } from '../shared/serialised.ts';
import { slugify } from '../shared/slug.ts';
import { parseStoredDefinition, type DefinitionFormat } from './definition.parser.ts';

/** One operation of an OpenAPI document, as search indexes it. */
export interface IndexedOperation {
  /** the anchor a reference page gives it: its operationId, else `<method>-<path>` made a slug */
  fragment: string;
  /** its summary, else `METHOD /path` */
  title: string;
  /** its description and its parameters, as plain lines */
  content: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Enough for any real document; a file with more is indexed up to here. */
const MAX_OPERATIONS = 5_000;
const MAX_TEXT = 4_000;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** A local `$ref` (`#/components/parameters/limit`) followed once; anything else is left as it is. */
function resolve(root: Json, value: unknown): unknown {
  if (!isObject(value) || typeof value.$ref !== 'string' || !value.$ref.startsWith('#/')) return value;
  let node: unknown = root;
  for (const raw of value.$ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node)) return value;
    node = node[key];
  }
  return node ?? value;
}

function parameterLines(root: Json, ...lists: unknown[]): string[] {
  const lines: string[] = [];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = resolve(root, raw);
      if (!isObject(parameter)) continue;
      const name = text(parameter.name);
      if (name === '') continue;
      const description = text(parameter.description);
      lines.push(description === '' ? name : `${name}: ${description}`);
    }
  }
  return lines;
}

export type OperationMethod = (typeof METHODS)[number];

/** An operation where a document holds it, with the anchor both search and the reference page give it. */
export interface LocatedOperation {
  path: string;
  method: OperationMethod;
  /** the path item (a local `$ref` to one followed) */
  item: Json;
  operation: Json;
  fragment: string;
}

/**
 * The operations of a parsed OpenAPI (or Swagger 2) document, in the order of its paths, each with
 * its anchor: its operationId, else `<method>-<path>`, made a slug; a repeated one gets `-2`, `-3`.
 * Search's entries and the reference page's element ids both come from here, so a hit's fragment is
 * always an id on the page.
 */
export function locateOperations(document: unknown): LocatedOperation[] {
  if (!isObject(document) || !isObject(document.paths)) return [];
  const located: LocatedOperation[] = [];
  const seen = new Map<string, number>();
  for (const [path, rawItem] of Object.entries(document.paths)) {
    const item = resolve(document, rawItem);
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      if (located.length >= MAX_OPERATIONS) return located;
      const operationId = text(operation.operationId);
      let fragment = slugify(operationId !== '' ? operationId : `${method} ${path}`, method);
      const count = (seen.get(fragment) ?? 0) + 1;
      seen.set(fragment, count);
      if (count > 1) fragment = `${fragment}-${count}`;
      located.push({ path, method, item, operation, fragment });
    }
  }
  return located;
}

/** The operations of a parsed OpenAPI (or Swagger 2) document, in the order of its paths. */
export function referenceOperations(document: unknown): IndexedOperation[] {
  if (!isObject(document)) return [];
  return locateOperations(document).map(({ path, method, item, operation, fragment }) => {
    const summary = text(operation.summary);
    const lines = [
      text(operation.description),
      ...parameterLines(document, item.parameters, operation.parameters),
    ];
    return {
      fragment,
      title: summary !== '' ? summary : `${method.toUpperCase()} ${path}`,
      content: lines
        .filter((line) => line !== '')
        .join('\n')
        .slice(0, MAX_TEXT),
    };
  });
}

/** The operations of a stored definition, read in this thread. */
export const operationsInPlace = (
  definition: string | Uint8Array,
  format: DefinitionFormat,
): Promise<IndexedOperation[]> => {
  try {
    return Promise.resolve(referenceOperations(parseStoredDefinition(utf8Text(definition), format)));
  } catch {
    // Stored definitions were valid when uploaded; one that no longer parses has nothing to index.
    return Promise.resolve([]);
  }
};
