import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { pipeline, Readable, Transform } from 'node:stream';

/*
 * Every 2xx JSON answer a test app sends is checked against the schema its route declares for that
 * status, as the bytes that leave the app: the answers Fastify serialises from the schema, and the
 * ones routes send already serialised (a page, a listing, a search, a changelog's posts), whose
 * text no serialiser shapes. Objects are closed for the check (no property the schema does not
 * name), because the serialiser drops such a property: an answer written by hand must not carry
 * one either. Decision 0026.
 */

export interface AnswerProblem {
  /** `GET /api/v1/page/:id 200` */
  answer: string;
  problem: string;
}

/** Where a checker reports: the suite's sink fails the running test (answer-check-setup.ts). */
export interface AnswerSink {
  problems: AnswerProblem[];
  /** answers checked, by `METHOD url status` */
  checked: Map<string, number>;
}

export const newSink = (): AnswerSink => ({ problems: [], checked: new Map() });

/** The suite's sink, emptied after every test. */
export const suiteAnswers = newSink();

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();

type JsonSchema = Record<string, unknown>;
const isSchema = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of `schema` whose objects admit only the properties they name, unless they say otherwise. */
function closed(schema: unknown): unknown {
  if (!isSchema(schema)) return schema;
  const copy: JsonSchema = { ...schema };
  if (isSchema(copy.properties)) {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties).map(([name, property]) => [name, closed(property)]),
    );
    if (copy.additionalProperties === undefined) copy.additionalProperties = false;
  }
  if (isSchema(copy.additionalProperties)) copy.additionalProperties = closed(copy.additionalProperties);
  if (isSchema(copy.items)) copy.items = closed(copy.items);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = copy[key];
    if (Array.isArray(branches)) copy[key] = branches.map(closed);
  }
  // The response headers documentResponseHeaders adds are not part of the body.
  delete copy.headers;
  return copy;
}

/** The JSON schema a route declares for a status (a plain schema, or OpenAPI `content`), or why none. */
function declaredBody(schema: FastifySchema | undefined, status: number): JsonSchema | string {
  const responses = schema?.response as Record<string, unknown> | undefined;
  const declared = responses?.[String(status)] ?? responses?.['2xx'] ?? responses?.default;
  if (!isSchema(declared)) return `no response schema is declared for ${status}`;
  if (!isSchema(declared.content)) return declared;
  const json = declared.content['application/json'];
  return isSchema(json) && isSchema(json.schema)
    ? json.schema
    : `the ${status} answer declares no application/json content`;
}

function validatorOf(schema: JsonSchema): ValidateFunction {
  // JSON drops TypeBox's symbol keys, which Ajv need not see.
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = ajv.compile(closed(JSON.parse(key)) as JsonSchema);
    compiled.set(key, validate);
  }
  return validate;
}

const describe = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('; ');

/**
 * What is wrong with a 2xx JSON body for the route schema, or null when it matches. Exported for
 * the test of the checker itself.
 */
export function answerProblem(
  schema: FastifySchema | undefined,
  status: number,
  body: string,
): string | null {
  const declared = declaredBody(schema, status);
  if (typeof declared === 'string') return declared;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return `the body is not JSON: ${body.slice(0, 120)}`;
  }
  const validate = validatorOf(declared);
  return validate(value) ? null : describe(validate.errors);
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * Checks the answer, and returns the payload to send: the same one, or for a stream (the listing's
 * parts on PostgreSQL) one that passes every chunk on and checks the whole once it has all been
 * sent. A stream that fails on the way is not checked: its answer is cut short on purpose.
 */
function check(sink: AnswerSink, request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const status = reply.statusCode;
  const route = request.routeOptions;
  // Unrouted answers (404s) and the undocumented routes (health, the document itself) have no contract.
  if (status < 200 || status >= 300 || route.url === undefined || route.schema?.hide === true) return payload;
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !JSON_TYPE.test(type)) return payload;
  const answer = `${request.method} ${route.url} ${status}`;
  const checkBody = (body: string) => {
    sink.checked.set(answer, (sink.checked.get(answer) ?? 0) + 1);
    const problem = answerProblem(route.schema, status, body);
    if (problem !== null) sink.problems.push({ answer, problem });
  };
  if (typeof payload === 'string') checkBody(payload);
  else if (Buffer.isBuffer(payload)) checkBody(payload.toString('utf8'));
  else if (payload instanceof Readable) {
    const chunks: Buffer[] = [];
    const recorder = new Transform({
      transform(chunk: Buffer | string, _encoding, next) {
        chunks.push(Buffer.from(chunk));
        next(null, chunk);
      },
      flush(next) {
        checkBody(Buffer.concat(chunks).toString('utf8'));
        next();
      },
    });
    return pipeline(payload, recorder, () => undefined);
  } else sink.problems.push({ answer, problem: `a JSON answer of an unknown kind: ${typeof payload}` });
  return payload;
}

/** The `instrument` option of buildApp that checks every answer of the app into `sink`. */
export const checkAnswers =
  (sink: AnswerSink = suiteAnswers) =>
  (app: FastifyInstance): void => {
    app.addHook('onSend', (request, reply, payload, done) => {
      let sent = payload;
      try {
        sent = check(sink, request, reply, payload);
      } catch (error) {
        // A schema Ajv cannot compile is a failure of the check, never a request left hanging.
        const answer = `${request.method} ${request.url} ${reply.statusCode}`;
        sink.problems.push({ answer, problem: `the check failed: ${String(error)}` });
      }
      done(null, sent);
    });
  };

/** The problems found so far, as one error message; the sink is emptied. */
export function takeProblems(sink: AnswerSink = suiteAnswers): string | null {
  const found = sink.problems.splice(0);
  sink.checked.clear();
  if (found.length === 0) return null;
  return [
    `${found.length} answer(s) did not match their declared schema:`,
    ...found.map(({ answer, problem }) => `  ${answer}: ${problem}`),
  ].join('\n');
}
