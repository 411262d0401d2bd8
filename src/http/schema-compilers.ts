import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Ajv } from 'ajv';

/*
 * The compilers of route schemas. A validator or serializer depends only on its schema and the
 * options below, so the compiled ones are shared by every app the process builds, keyed by the
 * schema's JSON: a server builds one app, but the test suite builds hundreds per process, and
 * compiling every route's schemas again was about a third of each build.
 */

/** The compiled value under `key`, made once. */
function kept<T>(compiled: Map<string, T>, key: string, compile: () => T): T {
  let value = compiled.get(key);
  if (value === undefined) {
    value = compile();
    compiled.set(key, value);
  }
  return value;
}

/**
 * Query strings and path parameters arrive as text and are coerced to the declared types; bodies are
 * JSON and must already have the right types, so a number where a string belongs is a 400.
 */
const validatorBase = { allErrors: false, removeAdditional: true, useDefaults: true, strict: false } as const;
const coercing = new Ajv({ ...validatorBase, coerceTypes: 'array' });
const strict = new Ajv({ ...validatorBase, coerceTypes: false });
const validators = new Map<string, ReturnType<Ajv['compile']>>();

export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }) {
  const body = httpPart === 'body';
  return kept(validators, `${body ? 'b' : 'c'}${JSON.stringify(schema)}`, () =>
    (body ? strict : coercing).compile(schema),
  );
}

/**
 * Fastify's own serializer compiler (fast-json-stringify), shared as the validators are where no
 * shared schema is registered and no option given, which is how Quire builds its apps; otherwise
 * each app compiles its own.
 */
const defaultSerializers = SerializerSelector();
const serializers = new Map<string, (doc: unknown) => string>();

export function buildSerializer(
  externalSchemas?: unknown,
  options?: Parameters<typeof defaultSerializers>[1],
): ReturnType<typeof defaultSerializers> {
  const compile = defaultSerializers(externalSchemas, options);
  const none = options === undefined && Object.keys(externalSchemas ?? {}).length === 0;
  if (!none) return compile;
  return (route) => kept(serializers, JSON.stringify(route.schema), () => compile(route));
}
