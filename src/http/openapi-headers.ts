import { REQUEST_HEADERS, RESPONSE_HEADERS } from './header-schemas.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const requestHeaderNames = new Map<string, keyof typeof REQUEST_HEADERS>(
  (Object.keys(REQUEST_HEADERS) as Array<keyof typeof REQUEST_HEADERS>).map((name) => [
    name.toLowerCase(),
    name,
  ]),
);

const withoutDescription = (schema: object): Json => {
  const { description: _description, ...rest } = schema as Json;
  return rest;
};

/**
 * Every request header of the routes (components.parameters) and every response header
 * (components.headers) is declared once and referred to wherever it is used, so that a generated
 * client has one type per header: an idempotency key is a parameter of every write, not a cast.
 */
export function hoistHeaders(document: Json): Json {
  const components = (document.components ?? {}) as Json;
  const parameters = { ...((components.parameters ?? {}) as Json) };
  const headers = { ...((components.headers ?? {}) as Json) };

  const parameterRef = (parameter: unknown): unknown => {
    if (!isObject(parameter) || parameter.in !== 'header' || typeof parameter.name !== 'string') {
      return parameter;
    }
    const name = requestHeaderNames.get(parameter.name.toLowerCase());
    if (name === undefined) return parameter;
    const { component, schema } = REQUEST_HEADERS[name];
    parameters[component] = {
      name,
      in: 'header',
      required: false,
      description: schema.description,
      schema: withoutDescription(schema),
    };
    return { $ref: `#/components/parameters/${component}` };
  };

  const headerRef = (name: string, header: unknown): unknown => {
    const schema = (RESPONSE_HEADERS as Record<string, object | undefined>)[name];
    if (schema === undefined) return header;
    headers[name] = {
      description: (schema as Json).description,
      schema: withoutDescription(schema),
    };
    return { $ref: `#/components/headers/${name}` };
  };

  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      if (Array.isArray(operation.parameters)) operation.parameters = operation.parameters.map(parameterRef);
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>)) {
        if (!isObject(response.headers)) continue;
        response.headers = Object.fromEntries(
          Object.entries(response.headers).map(([name, header]) => [name, headerRef(name, header)]),
        );
      }
    }
  }
  return { ...document, components: { ...components, parameters, headers } };
}
