/**
 * Small definitions in pairs, one pair per rule of the change report (extensions.md §8): the
 * definition before, the one after, and the one change expected, breaking (`B`) or not (`N`).
 */
type Json = Record<string, unknown>;

export interface ChangePair {
  rule: string;
  before: Json;
  after: Json;
  breaking: Array<[string, string]>;
  nonBreaking: Array<[string, string]>;
}

export const doc = (paths: Json, extra: Json = {}): Json => ({
  openapi: '3.0.3',
  info: { title: 'Change pairs', version: '1' },
  paths,
  ...extra,
});
const v31 = (document: Json): Json => ({ ...document, openapi: '3.1.0' });
const OK = { '200': { description: 'OK' } };
const op = (operation: Json = {}): Json => ({ responses: OK, ...operation });
const pets = (operation: Json = {}): Json => doc({ '/pets': { get: op(operation) } });
const post = (operation: Json): Json => doc({ '/pets': { post: op(operation) } });
const query = (name: string, extra: Json = {}): Json => ({
  name,
  in: 'query',
  schema: { type: 'string' },
  ...extra,
});
const body = (schema: Json, extra: Json = {}): Json => ({
  requestBody: { content: { 'application/json': { schema } }, ...extra },
});
const returns = (schema: Json): Json => ({
  responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } },
});
const object = (properties: Json, required?: string[]): Json => ({
  type: 'object',
  properties,
  ...(required ? { required } : {}),
});
const STRING = { type: 'string' };
const colour = (...values: string[]) => object({ colour: { type: 'string', enum: values } });
const KEY = { components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } } };
const secured = (security: unknown[]) => ({ ...pets({ security }), ...KEY });

const B = (kind: string, path: string): Pick<ChangePair, 'breaking' | 'nonBreaking'> => ({
  breaking: [[kind, path]],
  nonBreaking: [],
});
const N = (kind: string, path: string): Pick<ChangePair, 'breaking' | 'nonBreaking'> => ({
  breaking: [],
  nonBreaking: [[kind, path]],
});

const REQ = 'POST /pets request application/json body';
const RES = 'GET /pets response 200 application/json body';

export const CHANGE_PAIRS: ChangePair[] = [
  {
    rule: 'a path removed',
    before: doc({ '/pets': { get: op() }, '/owners': { get: op() } }),
    after: pets(),
    ...B('path.removed', '/owners'),
  },
  {
    rule: 'a path added',
    before: pets(),
    after: doc({ '/pets': { get: op() }, '/owners': { get: op() } }),
    ...N('path.added', '/owners'),
  },
  {
    rule: 'an operation removed',
    before: doc({ '/pets': { get: op(), delete: op() } }),
    after: pets(),
    ...B('operation.removed', 'DELETE /pets'),
  },
  {
    rule: 'an operation added',
    before: pets(),
    after: doc({ '/pets': { get: op(), delete: op() } }),
    ...N('operation.added', 'DELETE /pets'),
  },
  {
    rule: 'an operation deprecated',
    before: pets(),
    after: pets({ deprecated: true }),
    ...N('operation.deprecated', 'GET /pets'),
  },
  {
    rule: 'a parameter removed',
    before: pets({ parameters: [query('limit')] }),
    after: pets(),
    ...B('parameter.removed', 'GET /pets query.limit'),
  },
  {
    rule: 'a new required parameter',
    before: pets(),
    after: pets({ parameters: [query('limit', { required: true })] }),
    ...B('parameter.required', 'GET /pets query.limit'),
  },
  {
    rule: 'a parameter that became required',
    before: pets({ parameters: [query('limit')] }),
    after: pets({ parameters: [query('limit', { required: true })] }),
    ...B('parameter.required', 'GET /pets query.limit'),
  },
  {
    rule: 'a new optional parameter',
    before: pets(),
    after: pets({ parameters: [query('limit')] }),
    ...N('parameter.added', 'GET /pets query.limit'),
  },
  {
    rule: 'a parameter that became optional',
    before: pets({ parameters: [query('limit', { required: true })] }),
    after: pets({ parameters: [query('limit')] }),
    ...N('parameter.optional', 'GET /pets query.limit'),
  },
  {
    rule: "a parameter's enum value removed",
    before: pets({ parameters: [query('sort', { schema: { type: 'string', enum: ['name', 'age'] } })] }),
    after: pets({ parameters: [query('sort', { schema: { type: 'string', enum: ['name'] } })] }),
    ...B('enum.value-removed', 'GET /pets query.sort'),
  },
  {
    rule: "a parameter's type narrowed",
    before: pets({ parameters: [query('limit', { schema: { type: 'number' } })] }),
    after: pets({ parameters: [query('limit', { schema: { type: 'integer' } })] }),
    ...B('type.narrowed', 'GET /pets query.limit'),
  },
  {
    rule: "a parameter's type widened",
    before: pets({ parameters: [query('limit', { schema: { type: 'integer' } })] }),
    after: pets({ parameters: [query('limit', { schema: { type: 'number' } })] }),
    ...N('type.widened', 'GET /pets query.limit'),
  },
  {
    rule: 'the request body removed',
    before: post(body(object({ name: STRING }))),
    after: post({}),
    ...B('request-body.removed', 'POST /pets request'),
  },
  {
    rule: 'a new required request body',
    before: post({}),
    after: post(body(object({ name: STRING }), { required: true })),
    ...B('request-body.required', 'POST /pets request'),
  },
  {
    rule: 'a new optional request body',
    before: post({}),
    after: post(body(object({ name: STRING }))),
    ...N('request-body.added', 'POST /pets request'),
  },
  {
    rule: 'the request body became optional',
    before: post(body(object({ name: STRING }), { required: true })),
    after: post(body(object({ name: STRING }))),
    ...N('request-body.optional', 'POST /pets request'),
  },
  {
    rule: 'a request media type removed',
    before: post({
      requestBody: { content: { 'application/json': { schema: STRING }, 'text/plain': { schema: STRING } } },
    }),
    after: post(body(STRING)),
    ...B('request-media-type.removed', 'POST /pets request text/plain'),
  },
  {
    rule: 'a request property removed',
    before: post(body(object({ name: STRING, tag: STRING }))),
    after: post(body(object({ name: STRING }))),
    ...B('request-property.removed', `${REQ}.tag`),
  },
  {
    rule: 'a request property that became read-only',
    before: post(body(object({ id: STRING }))),
    after: post(body(object({ id: { type: 'string', readOnly: true } }))),
    ...B('request-property.removed', `${REQ}.id`),
  },
  {
    rule: 'a new required request property',
    before: post(body(object({ name: STRING }))),
    after: post(body(object({ name: STRING, tag: STRING }, ['tag']))),
    ...B('property.required', `${REQ}.tag`),
  },
  {
    rule: 'a request property that became required, in an array, behind a $ref',
    before: {
      ...post(body({ type: 'array', items: { $ref: '#/components/schemas/Pet' } })),
      components: { schemas: { Pet: object({ name: STRING }) } },
    },
    after: {
      ...post(body({ type: 'array', items: { $ref: '#/components/schemas/Pet' } })),
      components: { schemas: { Pet: object({ name: STRING }, ['name']) } },
    },
    ...B('property.required', `${REQ}[].name`),
  },
  {
    rule: 'a new optional request property',
    before: post(body(object({ name: STRING }))),
    after: post(body(object({ name: STRING, tag: STRING }))),
    ...N('request-property.added', `${REQ}.tag`),
  },
  {
    rule: 'a request property that became optional',
    before: post(body(object({ name: STRING }, ['name']))),
    after: post(body(object({ name: STRING }))),
    ...N('property.optional', `${REQ}.name`),
  },
  {
    rule: 'a request enum value removed',
    before: post(body(colour('red', 'green'))),
    after: post(body(colour('red'))),
    ...B('enum.value-removed', `${REQ}.colour`),
  },
  {
    rule: 'a request enum where there was none',
    before: post(body(object({ colour: STRING }))),
    after: post(body(colour('red'))),
    ...B('enum.restricted', `${REQ}.colour`),
  },
  {
    rule: 'a request enum value added',
    before: post(body(colour('red'))),
    after: post(body(colour('red', 'green'))),
    ...N('enum.value-added', `${REQ}.colour`),
  },
  {
    rule: 'a request property no longer nullable',
    before: post(body(object({ name: { type: 'string', nullable: true } }))),
    after: post(body(object({ name: STRING }))),
    ...B('type.narrowed', `${REQ}.name`),
  },
  {
    rule: 'a request property merged through allOf, its type changed',
    before: post(body({ allOf: [object({ age: { type: 'integer' } }), object({ name: STRING })] })),
    after: post(body({ allOf: [object({ age: STRING }), object({ name: STRING })] })),
    ...B('type.narrowed', `${REQ}.age`),
  },
  {
    rule: 'a request maxLength lowered',
    before: post(body(object({ name: { type: 'string', maxLength: 20 } }))),
    after: post(body(object({ name: { type: 'string', maxLength: 10 } }))),
    ...B('bound.narrowed', `${REQ}.name`),
  },
  {
    rule: 'a request maxLength raised',
    before: post(body(object({ name: { type: 'string', maxLength: 10 } }))),
    after: post(body(object({ name: { type: 'string', maxLength: 20 } }))),
    ...N('bound.widened', `${REQ}.name`),
  },
  {
    rule: 'a request minLength raised',
    before: post(body(object({ name: STRING }))),
    after: post(body(object({ name: { type: 'string', minLength: 2 } }))),
    ...B('bound.narrowed', `${REQ}.name`),
  },
  {
    rule: 'a request maxItems added',
    before: post(body({ type: 'array', items: STRING })),
    after: post(body({ type: 'array', items: STRING, maxItems: 5 })),
    ...B('bound.narrowed', REQ),
  },
  {
    rule: 'a request minItems lowered',
    before: post(body({ type: 'array', items: STRING, minItems: 2 })),
    after: post(body({ type: 'array', items: STRING, minItems: 1 })),
    ...N('bound.widened', REQ),
  },
  {
    rule: 'a query maximum lowered',
    before: pets({ parameters: [query('limit', { schema: { type: 'integer', maximum: 100 } })] }),
    after: pets({ parameters: [query('limit', { schema: { type: 'integer', maximum: 50 } })] }),
    ...B('bound.narrowed', 'GET /pets query.limit'),
  },
  {
    rule: 'a query minimum lowered',
    before: pets({ parameters: [query('limit', { schema: { type: 'integer', minimum: 1 } })] }),
    after: pets({ parameters: [query('limit', { schema: { type: 'integer', minimum: 0 } })] }),
    ...N('bound.widened', 'GET /pets query.limit'),
  },
  {
    rule: 'a request maximum made exclusive (3.0 form)',
    before: post(body(object({ age: { type: 'number', maximum: 10 } }))),
    after: post(body(object({ age: { type: 'number', maximum: 10, exclusiveMaximum: true } }))),
    ...B('bound.narrowed', `${REQ}.age`),
  },
  {
    rule: 'a request exclusiveMinimum raised (3.1 form)',
    before: v31(post(body(object({ age: { type: 'number', exclusiveMinimum: 0 } })))),
    after: v31(post(body(object({ age: { type: 'number', exclusiveMinimum: 1 } })))),
    ...B('bound.narrowed', `${REQ}.age`),
  },
  {
    rule: 'a request multipleOf added',
    before: post(body(object({ age: { type: 'integer' } }))),
    after: post(body(object({ age: { type: 'integer', multipleOf: 5 } }))),
    ...B('bound.narrowed', `${REQ}.age`),
  },
  {
    rule: 'a request multipleOf that divides the old one',
    before: post(body(object({ age: { type: 'integer', multipleOf: 6 } }))),
    after: post(body(object({ age: { type: 'integer', multipleOf: 3 } }))),
    ...N('bound.widened', `${REQ}.age`),
  },
  {
    rule: 'a request pattern added',
    before: post(body(object({ code: STRING }))),
    after: post(body(object({ code: { type: 'string', pattern: '^[a-z]+$' } }))),
    ...B('pattern.changed', `${REQ}.code`),
  },
  {
    rule: 'a request pattern changed',
    before: post(body(object({ code: { type: 'string', pattern: '^[a-z]+$' } }))),
    after: post(body(object({ code: { type: 'string', pattern: '^[a-z]{2}$' } }))),
    ...B('pattern.changed', `${REQ}.code`),
  },
  {
    rule: 'a request pattern removed',
    before: post(body(object({ code: { type: 'string', pattern: '^[a-z]+$' } }))),
    after: post(body(object({ code: STRING }))),
    ...N('pattern.removed', `${REQ}.code`),
  },
  {
    rule: 'a response code removed',
    before: pets({ responses: { ...OK, '404': { description: 'None' } } }),
    after: pets(),
    ...B('response.removed', 'GET /pets response 404'),
  },
  {
    rule: 'a response code added',
    before: pets(),
    after: pets({ responses: { ...OK, '404': { description: 'None' } } }),
    ...N('response.added', 'GET /pets response 404'),
  },
  {
    rule: 'a response media type removed',
    before: pets({
      responses: {
        '200': {
          description: 'OK',
          content: { 'application/json': { schema: STRING }, 'application/xml': { schema: STRING } },
        },
      },
    }),
    after: pets(returns(STRING)),
    ...B('response-media-type.removed', 'GET /pets response 200 application/xml'),
  },
  {
    rule: 'a response media type added',
    before: pets(),
    after: pets(returns(STRING)),
    ...N('response-media-type.added', 'GET /pets response 200 application/json'),
  },
  {
    rule: 'a response property removed',
    before: pets(returns(object({ id: STRING, name: STRING }))),
    after: pets(returns(object({ id: STRING }))),
    ...B('response-property.removed', `${RES}.name`),
  },
  {
    rule: 'a response property that may now be absent',
    before: pets(returns(object({ id: STRING }, ['id']))),
    after: pets(returns(object({ id: STRING }))),
    ...B('response-property.optional', `${RES}.id`),
  },
  {
    rule: 'a response property added',
    before: pets(returns(object({ id: STRING }))),
    after: pets(returns(object({ id: STRING, name: STRING }))),
    ...N('response-property.added', `${RES}.name`),
  },
  {
    rule: 'a response property now always present',
    before: pets(returns(object({ id: STRING }))),
    after: pets(returns(object({ id: STRING }, ['id']))),
    ...N('response-property.required', `${RES}.id`),
  },
  {
    rule: 'a response property that may now be null',
    before: pets(returns(object({ id: STRING }))),
    after: pets(returns(object({ id: { type: 'string', nullable: true } }))),
    ...B('response-type.changed', `${RES}.id`),
  },
  {
    rule: 'a response property no longer null',
    before: pets(returns(object({ id: { type: 'string', nullable: true } }))),
    after: pets(returns(object({ id: STRING }))),
    ...N('response-type.narrowed', `${RES}.id`),
  },
  {
    rule: 'a response enum value added',
    before: pets(returns(colour('red'))),
    after: pets(returns(colour('red', 'green'))),
    ...N('response-enum.value-added', `${RES}.colour`),
  },
  {
    rule: 'a response enum value removed',
    before: pets(returns(colour('red', 'green'))),
    after: pets(returns(colour('red'))),
    ...N('response-enum.value-removed', `${RES}.colour`),
  },
  {
    rule: 'a response maxLength raised',
    before: pets(returns(object({ id: { type: 'string', maxLength: 10 } }))),
    after: pets(returns(object({ id: { type: 'string', maxLength: 20 } }))),
    ...B('response-bound.widened', `${RES}.id`),
  },
  {
    rule: 'a response maxLength removed',
    before: pets(returns(object({ id: { type: 'string', maxLength: 10 } }))),
    after: pets(returns(object({ id: STRING }))),
    ...B('response-bound.widened', `${RES}.id`),
  },
  {
    rule: 'a response maximum lowered',
    before: pets(returns(object({ age: { type: 'integer', maximum: 100 } }))),
    after: pets(returns(object({ age: { type: 'integer', maximum: 50 } }))),
    ...N('response-bound.narrowed', `${RES}.age`),
  },
  {
    rule: 'a response pattern changed',
    before: pets(returns(object({ code: { type: 'string', pattern: '^[a-z]+$' } }))),
    after: pets(returns(object({ code: { type: 'string', pattern: '^[a-z0-9]+$' } }))),
    ...B('response-pattern.changed', `${RES}.code`),
  },
  {
    rule: 'a response pattern added',
    before: pets(returns(object({ code: STRING }))),
    after: pets(returns(object({ code: { type: 'string', pattern: '^[a-z]+$' } }))),
    ...N('response-pattern.added', `${RES}.code`),
  },
  {
    rule: 'a response header removed',
    before: pets({
      responses: { '200': { description: 'OK', headers: { 'X-Rate-Limit': { schema: STRING } } } },
    }),
    after: pets(),
    ...B('response-header.removed', 'GET /pets response 200 header.X-Rate-Limit'),
  },
  {
    rule: 'a response header added',
    before: pets(),
    after: pets({
      responses: { '200': { description: 'OK', headers: { 'X-Rate-Limit': { schema: STRING } } } },
    }),
    ...N('response-header.added', 'GET /pets response 200 header.X-Rate-Limit'),
  },
  {
    rule: 'security added where there was none',
    before: { ...pets(), ...KEY },
    after: secured([{ key: [] }]),
    ...B('security.added', 'GET /pets'),
  },
  {
    rule: 'security added to the whole document',
    before: { ...pets(), ...KEY },
    after: { ...pets(), ...KEY, security: [{ key: [] }] },
    ...B('security.added', 'GET /pets'),
  },
  {
    rule: 'a security requirement no longer accepted',
    before: secured([{ key: [] }, { oauth: ['read'] }]),
    after: secured([{ oauth: ['read'] }]),
    ...B('security.requirement-removed', 'GET /pets'),
  },
  {
    rule: 'a security requirement accepted too',
    before: secured([{ key: [] }]),
    after: secured([{ key: [] }, { oauth: ['read'] }]),
    ...N('security.requirement-added', 'GET /pets'),
  },
  {
    rule: 'security no longer required',
    before: secured([{ key: [] }]),
    after: secured([{}, { key: [] }]),
    ...N('security.removed', 'GET /pets'),
  },
];
