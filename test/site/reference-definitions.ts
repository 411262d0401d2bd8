// Definitions the reference page tests upload: each uses what a part of the page must show.

/** An OpenAPI 3.0 document that uses what the page must show. */
export function petsDefinition(title = 'Pets API', extraPaths: Record<string, unknown> = {}): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: {
      title,
      version: '2.1.0',
      description:
        'The **pet store** API. <script>alert("boom")</script> <a href="javascript:alert(2)">click</a> ' +
        '[bad](javascript:alert(3)) <img src="x" onerror="alert(4)">',
    },
    servers: [{ url: 'https://{region}.example.com/v1', variables: { region: { default: 'api' } } }],
    tags: [
      { name: 'store', description: 'Orders and stock.' },
      { name: 'pets', description: 'Everything about *pets*.' },
    ],
    security: [{ token: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          tags: ['pets'],
          summary: 'List the pets',
          description: 'Pets, *newest first*.',
          parameters: [
            { $ref: '#/components/parameters/Limit' },
            { name: 'kind', in: 'query', schema: { type: 'string', enum: ['cat', 'dog', 'newt'] } },
          ],
          responses: {
            '200': {
              description: 'The pets',
              content: {
                'application/json': {
                  schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
                  example: [{ id: 7, name: 'Rex' }],
                },
              },
            },
          },
        },
        post: {
          operationId: 'addPet',
          tags: ['pets'],
          summary: 'Add a pet',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
          },
          responses: { '201': { description: 'Added' } },
        },
      },
      '/pets/{id}/family': {
        get: {
          tags: ['pets'],
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': {
              description: 'The family tree',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
            },
          },
        },
      },
      '/orders': {
        get: {
          operationId: 'listOrders',
          tags: ['store'],
          responses: { default: { description: 'Orders' } },
        },
      },
      ...extraPaths,
    },
    components: {
      securitySchemes: { token: { type: 'http', scheme: 'bearer' } },
      parameters: {
        Limit: {
          name: 'limit',
          in: 'query',
          required: true,
          description: 'How many at most',
          schema: { type: 'integer', minimum: 1, maximum: 100 },
        },
      },
      schemas: {
        Pet: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer', format: 'int64' },
            name: { type: 'string', description: 'The name it answers to' },
            body: {
              oneOf: [{ $ref: '#/components/schemas/Fur' }, { $ref: '#/components/schemas/Scales' }],
            },
          },
        },
        NewPet: {
          allOf: [
            { $ref: '#/components/schemas/Pet' },
            { type: 'object', properties: { microchip: { type: 'string', pattern: '^[0-9]{15}$' } } },
          ],
        },
        Fur: { type: 'object', properties: { colour: { type: 'string', enum: ['black', 'ginger'] } } },
        Scales: { type: 'object', properties: { shiny: { type: 'boolean' } } },
        Node: {
          type: 'object',
          properties: {
            label: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
          },
        },
      },
    },
  });
}

/** A Swagger 2.0 document: host, base path, a body parameter, form data, definitions. */
export function swaggerDefinition(): string {
  return JSON.stringify({
    swagger: '2.0',
    info: { title: 'Users', version: '1' },
    host: 'users.example.com',
    basePath: '/v2',
    schemes: ['https'],
    consumes: ['application/json'],
    produces: ['application/json'],
    securityDefinitions: { key: { type: 'apiKey', name: 'X-Api-Key', in: 'header' } },
    security: [{ key: [] }],
    paths: {
      '/users': {
        post: {
          operationId: 'createUser',
          summary: 'Create a user with pets',
          parameters: [{ name: 'user', in: 'body', required: true, schema: { $ref: '#/definitions/User' } }],
          responses: { '201': { description: 'Created', schema: { $ref: '#/definitions/User' } } },
        },
      },
      '/users/{id}/avatar': {
        put: {
          operationId: 'setAvatar',
          summary: 'Set the avatar of one of the pets',
          consumes: ['multipart/form-data'],
          parameters: [
            { name: 'id', in: 'path', required: true, type: 'integer' },
            { name: 'image', in: 'formData', required: true, type: 'file' },
          ],
          responses: {
            '200': {
              description: 'Set',
              headers: { 'X-Rate-Limit': { type: 'integer', description: 'Calls left' } },
            },
          },
        },
      },
    },
    definitions: {
      User: {
        type: 'object',
        required: ['email'],
        properties: {
          email: { type: 'string', format: 'email' },
          nickname: { type: 'string', 'x-nullable': true },
          friends: { type: 'array', items: { $ref: '#/definitions/User' } },
        },
      },
    },
  });
}

/**
 * A "$ref bomb": each schema points twice at the next, so the first holds 2^15 copies of the last
 * once expanded; small enough for the upload's own bound, far too large to show in full.
 */
export function bombDefinition(): string {
  const schemas: Record<string, unknown> = { S15: { type: 'string' } };
  for (let i = 0; i < 15; i++) {
    const next = { $ref: `#/components/schemas/S${i + 1}` };
    schemas[`S${i}`] = { type: 'object', properties: { a: next, b: next } };
  }
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Bomb', version: '1' },
    paths: {
      '/boom': {
        get: {
          responses: {
            '200': {
              description: 'ok',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/S0' } } },
            },
          },
        },
      },
    },
    components: { schemas },
  });
}
