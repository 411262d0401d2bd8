/**
 * A Swagger 2.0 document as OpenAPI 3.0 says the same things, for showing it (site.md §4): servers
 * from `schemes`, `host` and `basePath`; body and form parameters as request bodies; response
 * schemas and examples under their media types; `definitions` as `components.schemas`, every
 * `$ref` to them rewritten; security definitions as security schemes. Parameters and responses
 * named at the top level are written out where they are used, since a body parameter there becomes
 * a request body, not a parameter. Pure and bounded by the document: each object is copied once,
 * so shared and circular objects (YAML aliases) stay shared and circular.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];
/** The keywords a Swagger 2 parameter or header shares with a schema. */
const SCHEMA_KEYWORDS = [
  ...'type format items default enum multipleOf pattern maxLength minLength'.split(' '),
  ...'maximum exclusiveMaximum minimum exclusiveMinimum maxItems minItems uniqueItems'.split(' '),
];
const MOVED_REFS: Array<[string, string]> = [['#/definitions/', '#/components/schemas/']];

export const isSwagger2 = (document: unknown): document is Json =>
  isObject(document) && document.swagger === '2.0';

export function upgradeSwagger(document: Json): Json {
  const schemas = new SchemaCopier();
  const consumes = strings(document.consumes);
  const produces = strings(document.produces);
  const paths: Json = {};
  for (const [path, rawItem] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    const item = local(document, rawItem);
    if (!isObject(item)) continue;
    const upgraded: Json = {};
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      upgraded[method] = upgradeOperation(document, schemas, item, operation, {
        consumes: 'consumes' in operation ? strings(operation.consumes) : consumes,
        produces: 'produces' in operation ? strings(operation.produces) : produces,
      });
    }
    paths[path] = upgraded;
  }
  const definitions = isObject(document.definitions) ? document.definitions : {};
  const components: Json = {
    schemas: Object.fromEntries(Object.entries(definitions).map(([name, s]) => [name, schemas.copy(s)])),
  };
  if (isObject(document.securityDefinitions)) {
    components.securitySchemes = Object.fromEntries(
      Object.entries(document.securityDefinitions).map(([name, scheme]) => [name, securityScheme(scheme)]),
    );
  }
  const upgraded: Json = {
    openapi: '3.0.3',
    info: document.info,
    servers: servers(document),
    paths,
    components,
  };
  for (const key of ['security', 'tags', 'externalDocs'] as const) {
    if (key in document) upgraded[key] = document[key];
  }
  return upgraded;
}

function servers(document: Json): Json[] {
  const host = typeof document.host === 'string' ? document.host : '';
  const basePath = typeof document.basePath === 'string' ? document.basePath.replace(/\/$/, '') : '';
  if (host === '') return basePath === '' ? [] : [{ url: basePath }];
  const schemes = strings(document.schemes);
  return (schemes.length > 0 ? schemes : ['https']).map((scheme) => ({
    url: `${scheme}://${host}${basePath}`,
  }));
}

function upgradeOperation(
  document: Json,
  schemas: SchemaCopier,
  item: Json,
  operation: Json,
  media: { consumes: string[]; produces: string[] },
): Json {
  const upgraded: Json = {};
  for (const key of ['tags', 'summary', 'description', 'operationId', 'deprecated', 'security']) {
    if (key in operation) upgraded[key] = operation[key];
  }
  const parameters: Json[] = [];
  let body: Json | undefined;
  const form: Json[] = [];
  for (const parameter of mergedParameters(document, item, operation)) {
    if (parameter.in === 'body') body = parameter;
    else if (parameter.in === 'formData') form.push(parameter);
    else parameters.push(upgradeParameter(schemas, parameter));
  }
  if (parameters.length > 0) upgraded.parameters = parameters;
  const consumes = media.consumes.length > 0 ? media.consumes : ['application/json'];
  if (body !== undefined) {
    const schema = schemas.copy(body.schema);
    upgraded.requestBody = {
      ...(typeof body.description === 'string' ? { description: body.description } : {}),
      required: body.required === true,
      content: Object.fromEntries(consumes.map((type) => [type, { schema }])),
    };
  } else if (form.length > 0) {
    upgraded.requestBody = formBody(schemas, form, consumes);
  }
  const responses: Json = {};
  for (const [status, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
    const response = local(document, raw);
    if (isObject(response)) responses[status] = upgradeResponse(schemas, response, media.produces);
  }
  upgraded.responses = responses;
  return upgraded;
}

/** The path's parameters and the operation's, the operation's winning for the same name and place. */
function mergedParameters(document: Json, item: Json, operation: Json): Json[] {
  const byKey = new Map<string, Json>();
  for (const list of [item.parameters, operation.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const parameter = local(document, raw);
      if (isObject(parameter)) byKey.set(`${String(parameter.in)}\n${String(parameter.name)}`, parameter);
    }
  }
  return [...byKey.values()];
}

function upgradeParameter(schemas: SchemaCopier, parameter: Json): Json {
  const upgraded: Json = { name: parameter.name, in: parameter.in };
  for (const key of ['description', 'required', 'allowEmptyValue'] as const) {
    if (key in parameter) upgraded[key] = parameter[key];
  }
  if ('x-example' in parameter) upgraded.example = parameter['x-example'];
  upgraded.schema = schemaOf(schemas, parameter);
  const format = parameter.collectionFormat;
  if (parameter.type === 'array' && typeof format === 'string') {
    const query = parameter.in === 'query';
    if (format === 'multi') Object.assign(upgraded, { style: 'form', explode: true });
    else if (format === 'ssv' && query) Object.assign(upgraded, { style: 'spaceDelimited', explode: false });
    else if (format === 'pipes' && query) Object.assign(upgraded, { style: 'pipeDelimited', explode: false });
    else if (format === 'csv') upgraded.explode = false;
  }
  return upgraded;
}

/** A parameter's or header's own schema keywords as a schema (`type: file` is a binary string). */
function schemaOf(schemas: SchemaCopier, parameter: Json): unknown {
  const schema: Json = {};
  for (const key of SCHEMA_KEYWORDS) if (key in parameter) schema[key] = parameter[key];
  return schemas.copy(schema);
}

function formBody(schemas: SchemaCopier, form: Json[], consumes: string[]): Json {
  const properties: Json = {};
  const required: string[] = [];
  for (const parameter of form) {
    const name = String(parameter.name);
    const schema = schemaOf(schemas, parameter);
    properties[name] =
      isObject(schema) && typeof parameter.description === 'string'
        ? { ...schema, description: parameter.description }
        : schema;
    if (parameter.required === true) required.push(name);
  }
  const hasFile = form.some((parameter) => parameter.type === 'file');
  const declared = consumes.filter((type) => FORM_TYPES.includes(type));
  const types = declared.length > 0 ? declared : [hasFile ? 'multipart/form-data' : FORM_TYPES[0]];
  const schema = { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  return {
    required: required.length > 0,
    content: Object.fromEntries(types.map((type) => [type, { schema }])),
  };
}

function upgradeResponse(schemas: SchemaCopier, response: Json, produces: string[]): Json {
  const upgraded: Json = { description: response.description ?? '' };
  if (isObject(response.headers)) {
    upgraded.headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, header]) => [
        name,
        isObject(header)
          ? {
              ...(typeof header.description === 'string' ? { description: header.description } : {}),
              schema: schemaOf(schemas, header),
            }
          : {},
      ]),
    );
  }
  const examples = isObject(response.examples) ? response.examples : {};
  const types = new Set([
    ...(produces.length > 0 ? produces : ['application/json']),
    ...Object.keys(examples),
  ]);
  const content: Json = {};
  const hasSchema = response.schema !== undefined;
  for (const type of types) {
    const example = examples[type];
    if (!hasSchema && example === undefined) continue;
    content[type] = {
      ...(hasSchema ? { schema: schemas.copy(response.schema) } : {}),
      ...(example !== undefined ? { example } : {}),
    };
  }
  if (Object.keys(content).length > 0) upgraded.content = content;
  return upgraded;
}

function securityScheme(scheme: unknown): unknown {
  if (!isObject(scheme)) return scheme;
  const description = typeof scheme.description === 'string' ? { description: scheme.description } : {};
  switch (scheme.type) {
    case 'basic':
      return { type: 'http', scheme: 'basic', ...description };
    case 'apiKey':
      return { type: 'apiKey', name: scheme.name, in: scheme.in, ...description };
    case 'oauth2': {
      const flow = { implicit: 'implicit', password: 'password', application: 'clientCredentials' }[
        String(scheme.flow)
      ];
      const urls = {
        ...(scheme.authorizationUrl !== undefined ? { authorizationUrl: scheme.authorizationUrl } : {}),
        ...(scheme.tokenUrl !== undefined ? { tokenUrl: scheme.tokenUrl } : {}),
      };
      const scopes = isObject(scheme.scopes) ? scheme.scopes : {};
      return {
        type: 'oauth2',
        flows: { [flow ?? 'authorizationCode']: { ...urls, scopes } },
        ...description,
      };
    }
    default:
      return scheme;
  }
}

/** A `$ref` to a place in the same document, followed (at most a few hops); anything else as it is. */
function local(document: Json, value: unknown): unknown {
  let node = value;
  for (let hops = 0; hops < 8; hops++) {
    if (!isObject(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
    let target: unknown = document;
    for (const raw of node.$ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? target[key] : undefined;
    }
    if (target === undefined) return node;
    node = target;
  }
  return node;
}

/**
 * Copies schemas with their Swagger 2 spellings made OpenAPI 3.0's: `$ref`s to `definitions` point
 * into `components.schemas`, `x-nullable` is `nullable`, `type: file` a binary string, a
 * discriminator names its property. One copy per object, so the copy shares and loops as the
 * original does and costs no more than it.
 */
class SchemaCopier {
  private readonly copies = new Map<object, unknown>();

  copy(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    const done = this.copies.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      const list: unknown[] = [];
      this.copies.set(value, list);
      for (const item of value) list.push(this.copy(item));
      return list;
    }
    const copy: Json = {};
    this.copies.set(value, copy);
    for (const [key, item] of Object.entries(value as Json)) {
      if (key === '$ref' && typeof item === 'string') copy.$ref = movedRef(item);
      else if (key === 'x-nullable' && typeof item === 'boolean') copy.nullable = item;
      else if (key === 'discriminator' && typeof item === 'string')
        copy.discriminator = { propertyName: item };
      else copy[key] = this.copy(item);
    }
    if (copy.type === 'file') Object.assign(copy, { type: 'string', format: 'binary' });
    return copy;
  }
}

function movedRef(ref: string): string {
  for (const [from, to] of MOVED_REFS) if (ref.startsWith(from)) return to + ref.slice(from.length);
  return ref;
}
