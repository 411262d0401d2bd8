import { utf8Text } from '../shared/serialised.ts';
import { SchemaDiff } from './definition-diff-schemas.ts';
import { diffSecurity } from './definition-diff-security.ts';
import { ChangeCollector, type ChangeReport } from './definition-diff.types.ts';
import { parseStoredDefinition, type DefinitionFormat } from './definition.parser.ts';
import { follow, isObject, type Json } from './reference-json.ts';
import { isSwagger2, upgradeSwagger } from './swagger-upgrade.ts';

/**
 * The changes from one OpenAPI definition to another, as a client of the API sees them
 * (extensions.md §8; decision 0033). Both documents are read in one form: Swagger 2 upgraded to
 * OpenAPI 3.0, local `$ref`s followed. Paths match with their parameter names ignored
 * (`/pets/{id}` is `/pets/{petId}`); parameters by place and name (a path parameter by its place in
 * the path); responses by status code; bodies by media type. Pure: no I/O, the same report for
 * the same two documents.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The change report between two stored definitions. */
export function diffStoredDefinitions(
  from: { text: string | Uint8Array; format: DefinitionFormat },
  to: { text: string | Uint8Array; format: DefinitionFormat },
): ChangeReport {
  return diffDefinitions(readStored(from.text, from.format), readStored(to.text, to.format));
}

function readStored(text: string | Uint8Array, format: DefinitionFormat): unknown {
  try {
    return parseStoredDefinition(utf8Text(text), format);
  } catch {
    // Stored definitions parsed when they were uploaded; one that no longer does has no operations.
    return {};
  }
}

/** The change report between two parsed documents (OpenAPI 3.x or Swagger 2.0). */
export function diffDefinitions(before: unknown, after: unknown): ChangeReport {
  const out = new ChangeCollector();
  const roots: [Json, Json] = [normalised(before), normalised(after)];
  const schemas = new SchemaDiff(roots, out);
  const [oldPaths, newPaths] = [pathsOf(roots[0]), pathsOf(roots[1])];
  for (const [key, old] of oldPaths) {
    const current = newPaths.get(key);
    if (!current) {
      out.add('path.removed', old.path, `path ${old.path} was removed`);
      continue;
    }
    const context = { roots, out, schemas };
    for (const method of METHODS) {
      const [a, b] = [old.item[method], current.item[method]];
      const name = `${method.toUpperCase()} ${current.path}`;
      if (isObject(a) && isObject(b)) diffOperation(context, name, [old, current], [a, b]);
      else if (isObject(a)) out.add('operation.removed', name, `operation ${name} was removed`);
      else if (isObject(b)) out.add('operation.added', name, `new operation ${name}`);
    }
  }
  for (const [key, current] of newPaths) {
    if (!oldPaths.has(key)) out.add('path.added', current.path, `new path ${current.path}`);
  }
  return out.report();
}

function normalised(document: unknown): Json {
  if (!isObject(document)) return {};
  return isSwagger2(document) ? upgradeSwagger(document) : document;
}

interface PathEntry {
  path: string;
  item: Json;
  /** the names of its template's parameters, in order */
  templated: string[];
}

/** Paths by their template with the parameter names left out; the first of two that match wins. */
function pathsOf(root: Json): Map<string, PathEntry> {
  const paths = new Map<string, PathEntry>();
  for (const [path, raw] of Object.entries(isObject(root.paths) ? root.paths : {})) {
    const { node: item } = follow(root, raw);
    const key = path.replace(/\{[^}]*\}/g, '{}');
    if (!isObject(item) || paths.has(key)) continue;
    const templated = [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1] ?? '');
    paths.set(key, { path, item, templated });
  }
  return paths;
}

interface Context {
  roots: [Json, Json];
  out: ChangeCollector;
  schemas: SchemaDiff;
}

function diffOperation(
  { roots, out, schemas }: Context,
  name: string,
  [oldPath, newPath]: [PathEntry, PathEntry],
  [before, after]: [Json, Json],
): void {
  if (before.deprecated !== true && after.deprecated === true) {
    out.add('operation.deprecated', name, `operation ${name} is deprecated`);
  }
  const [oldParams, newParams] = [
    parametersOf(roots[0], oldPath, before),
    parametersOf(roots[1], newPath, after),
  ];
  for (const [key, old] of oldParams) {
    const current = newParams.get(key);
    const where = `${name} ${old.label}`;
    if (!current) {
      out.add('parameter.removed', where, `${old.label} parameter was removed`);
      continue;
    }
    const at = `${name} ${current.label}`;
    const [wasRequired, isRequired] = [old.value.required === true, current.value.required === true];
    if (isRequired && !wasRequired) out.add('parameter.required', at, `${current.label} became required`);
    if (wasRequired && !isRequired) out.add('parameter.optional', at, `${current.label} became optional`);
    schemas.compare(parameterSchema(old.value), parameterSchema(current.value), at, 'request');
  }
  for (const [key, current] of newParams) {
    if (oldParams.has(key)) continue;
    const at = `${name} ${current.label}`;
    if (current.value.required === true) {
      out.add('parameter.required', at, `new required parameter ${current.label}`);
    } else out.add('parameter.added', at, `new optional parameter ${current.label}`);
  }
  diffRequestBody({ roots, out, schemas }, name, before.requestBody, after.requestBody);
  diffResponses({ roots, out, schemas }, name, before.responses, after.responses);
  diffSecurity(out, name, [securityOf(roots[0], before), securityOf(roots[1], after)]);
}

interface Parameter {
  label: string;
  value: Json;
}

/**
 * An operation's parameters, the path item's merged in (the operation's win), keyed by place and
 * name: header names are case-insensitive, and a path parameter is known by its place in the path.
 */
function parametersOf(root: Json, path: PathEntry, operation: Json): Map<string, Parameter> {
  const parameters = new Map<string, Parameter>();
  for (const list of [path.item.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const { node } = follow(root, raw);
      if (!isObject(node) || typeof node.name !== 'string' || typeof node.in !== 'string') continue;
      const place = path.templated.indexOf(node.name);
      const key =
        node.in === 'path' && place >= 0
          ? `path\n#${place}`
          : `${node.in}\n${node.in === 'header' ? node.name.toLowerCase() : node.name}`;
      parameters.set(key, { label: `${node.in}.${node.name}`, value: node });
    }
  }
  return parameters;
}

/** A parameter's schema, or that of its first media type (`content`). */
function parameterSchema(parameter: Json): unknown {
  if (parameter.schema !== undefined) return parameter.schema;
  const content = isObject(parameter.content) ? Object.values(parameter.content) : [];
  const first = content[0];
  return isObject(first) ? first.schema : undefined;
}

function diffRequestBody({ roots, out, schemas }: Context, name: string, rawOld: unknown, rawNew: unknown) {
  const before = follow(roots[0], rawOld).node;
  const after = follow(roots[1], rawNew).node;
  const where = `${name} request`;
  if (!isObject(before) && !isObject(after)) return;
  if (!isObject(after)) {
    out.add('request-body.removed', where, 'the request body was removed');
    return;
  }
  const isRequired = after.required === true;
  if (!isObject(before)) {
    if (isRequired) out.add('request-body.required', where, 'a request body is now required');
    else out.add('request-body.added', where, 'new optional request body');
    return;
  }
  const wasRequired = before.required === true;
  if (isRequired && !wasRequired) out.add('request-body.required', where, 'the request body became required');
  if (wasRequired && !isRequired) out.add('request-body.optional', where, 'the request body became optional');
  diffContent(schemas, out, where, [before.content, after.content], 'request');
}

function diffResponses({ roots, out, schemas }: Context, name: string, rawOld: unknown, rawNew: unknown) {
  const before = isObject(rawOld) ? rawOld : {};
  const after = isObject(rawNew) ? rawNew : {};
  for (const status of Object.keys(before)) {
    const where = `${name} response ${status}`;
    if (!(status in after)) {
      out.add('response.removed', where, `response ${status} was removed`);
      continue;
    }
    const [a, b] = [follow(roots[0], before[status]).node, follow(roots[1], after[status]).node];
    if (!isObject(a) || !isObject(b)) continue;
    diffHeaders(out, where, [a.headers, b.headers]);
    diffContent(schemas, out, where, [a.content, b.content], 'response');
  }
  for (const status of Object.keys(after)) {
    if (!(status in before))
      out.add('response.added', `${name} response ${status}`, `new response ${status}`);
  }
}

/** A response's headers by name, in any case: one removed may be one a client reads. */
function diffHeaders(out: ChangeCollector, where: string, [rawOld, rawNew]: [unknown, unknown]): void {
  const byName = (raw: unknown) =>
    new Map(Object.keys(isObject(raw) ? raw : {}).map((name) => [name.toLowerCase(), name]));
  const [before, after] = [byName(rawOld), byName(rawNew)];
  for (const [key, name] of before) {
    if (!after.has(key))
      out.add('response-header.removed', `${where} header.${name}`, `header ${name} was removed`);
  }
  for (const [key, name] of after) {
    if (!before.has(key)) out.add('response-header.added', `${where} header.${name}`, `new header ${name}`);
  }
}

/** Bodies compared by media type; a type removed breaks the side that relied on it. */
function diffContent(
  schemas: SchemaDiff,
  out: ChangeCollector,
  where: string,
  [rawOld, rawNew]: [unknown, unknown],
  direction: 'request' | 'response',
): void {
  const before = isObject(rawOld) ? rawOld : {};
  const after = isObject(rawNew) ? rawNew : {};
  for (const [type, media] of Object.entries(before)) {
    const at = `${where} ${type}`;
    const current = after[type];
    if (current === undefined) {
      out.add(`${direction}-media-type.removed`, at, `media type ${type} was removed`);
    } else if (isObject(media) && isObject(current)) {
      schemas.compare(media.schema, current.schema, `${at} body`, direction);
    }
  }
  for (const type of Object.keys(after)) {
    if (!(type in before))
      out.add(`${direction}-media-type.added`, `${where} ${type}`, `new media type ${type}`);
  }
}

/** The security an operation asks for: its own, or the document's. */
function securityOf(root: Json, operation: Json): unknown[] {
  if (Array.isArray(operation.security)) return operation.security;
  return Array.isArray(root.security) ? root.security : [];
}
