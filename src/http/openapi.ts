import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { hoistHeaders } from './openapi-headers.ts';
import { OPERATIONS } from './operations.ts';
import { documentedFormOf } from './schemas.ts';

const PREFIX = '/api/v1';
const COMPONENT_PREFIX = '#/components/schemas/';

/** One line per tag: Spectral and Redocly want every tag an operation uses declared and described. */
const TAGS = [
  { name: 'pages', description: 'Pages of documentation sections: drafts, publishing, history, trash' },
  { name: 'documentation', description: 'Documentation sections of a version, and their categories' },
  { name: 'versions', description: 'Versions of the project: listing, publishing, cloning, reports' },
  { name: 'references', description: 'API references: OpenAPI definitions uploaded, published and read' },
  { name: 'users', description: 'Users of the project and their roles' },
  { name: 'reader-access', description: 'E-mail grants for readers of invite-protected projects' },
  { name: 'all', description: 'Every resource of the project at once, keyed by id' },
  { name: 'search', description: 'Full-text search of what readers can see (callable from browsers)' },
  { name: 'audit', description: 'The audit log of every change (enterprise plans)' },
  { name: 'export', description: 'The project as a ZIP archive (enterprise plans)' },
  { name: 'import', description: 'Export archives brought in as new versions' },
  { name: 'changelogs', description: "Posts of the project's changelogs" },
  { name: 'webhooks', description: 'Signed notifications of changes, and their deliveries' },
  { name: 'feedback', description: 'What readers answered to "Was this page helpful?" on the reader site' },
];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The route's schema as the document shows it: a schema whose documented form differs from the one
 * that validates (see documentedAs) is swapped, and the operation's permission and rate limit come
 * from the same route config and OPERATIONS entry the pipeline enforces, so they cannot drift.
 */
function documentedSchema(route: RouteOptions): Json {
  const schema: Json = { ...(route.schema as Json | undefined) };
  for (const part of ['body', 'querystring', 'params'] as const) {
    const documented = documentedFormOf(schema[part]);
    if (documented !== undefined) schema[part] = documented;
  }
  const { operation, permission } = route.config ?? {};
  if (permission !== undefined) schema['x-permission'] = permission;
  if (operation !== undefined) {
    const { limit, windowMs } = OPERATIONS[operation];
    schema['x-rate-limit'] = { limit, windowSeconds: windowMs / 1000 };
  }
  return schema;
}

const withoutDescription = (schema: Json): Json => {
  const { description: _description, ...rest } = schema;
  return rest;
};

/**
 * Moves every titled schema of the responses into components.schemas under its title, and puts a
 * $ref where it was, so that generators emit one named type per resource (Page, Version, Error…)
 * rather than a copy per operation. The route schemas stay inline: Fastify validates and serialises
 * with them exactly as before. A title reused for a different shape keeps that shape inline (the
 * document test fails on it), rather than naming two shapes alike.
 */
function hoistComponents(document: Json): Json {
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const shapes = new Map<string, string>();

  const hoist = (schema: Json, root: boolean): Json => {
    const inner = walk(schema);
    const title = typeof schema.title === 'string' ? schema.title : undefined;
    if (title === undefined || !/^[A-Za-z0-9._-]+$/.test(title)) return inner;
    const shape = JSON.stringify(withoutDescription(inner));
    const known = shapes.get(title);
    if (known === undefined) {
      shapes.set(title, shape);
      schemas[title] = withoutDescription(inner);
    } else if (known !== shape) {
      return inner;
    }
    const ref: Json = { $ref: `${COMPONENT_PREFIX}${title}` };
    // A response's own schema repeats the response description; a nested one says what the field is.
    if (!root && typeof schema.description === 'string') ref.description = schema.description;
    return ref;
  };

  const walk = (value: Json): Json =>
    Object.fromEntries(
      Object.entries(value).map(([key, child]) => {
        if (Array.isArray(child)) {
          const items: unknown[] = child;
          return [key, items.map((item) => (isObject(item) ? hoist(item, false) : item))];
        }
        // `properties` maps names to schemas: the names themselves are never schemas.
        if (key === 'properties' && isObject(child)) {
          return [
            key,
            Object.fromEntries(
              Object.entries(child).map(([name, s]) => [name, isObject(s) ? hoist(s, false) : s]),
            ),
          ];
        }
        return [key, isObject(child) ? hoist(child, false) : child];
      }),
    );

  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      for (const response of Object.values(responses)) {
        const content = (response.content ?? {}) as Record<string, Json>;
        for (const media of Object.values(content)) {
          if (isObject(media.schema)) media.schema = hoist(media.schema, true);
        }
      }
    }
  }
  return { ...document, components: { ...components, schemas } };
}

/** The API's own description, generated from the routes' schemas and served at /api/v1/openapi.json. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quire API',
        version: '1.0.0',
        description:
          'Documentation content service: pages, documentation sections, versions, API references, ' +
          'users, reader access, search, audit log, export and import, changelogs and webhooks. Every ' +
          'operation needs an API key in X-Api-Key holding the permission named in `x-permission`, and ' +
          'counts against the per-key limit in `x-rate-limit` (reported in the X-RateLimit-* headers). ' +
          'Every error has the body of the Error schema.',
        contact: { name: 'The Quire authors' },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: PREFIX, description: 'This server' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description: 'A project key (qk_…), made with `bin/quire key create`',
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: ({ route, url }) => ({
      schema: documentedSchema(route),
      url: url.startsWith(PREFIX) ? url.slice(PREFIX.length) || '/' : url,
    }),
    transformObject: (document) =>
      'openapiObject' in document
        ? (hoistHeaders(hoistComponents(document.openapiObject as Json)) as never)
        : document.swaggerObject,
  });
}
