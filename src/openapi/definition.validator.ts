import { dereference, validate, type ParserOptions } from '@readme/openapi-parser';
import { BadRequestError } from '../errors.ts';
import { assertManageable } from './definition.limits.ts';
import { locate, pointerAtPrettyLine, type Location } from './definition.locator.ts';
import { fileProblem, parseStoredDefinition, type ParsedDefinition } from './definition.parser.ts';

/**
 * No `$ref` is ever fetched: external ones (URLs, files) are left as they are, unresolved, and the
 * document is judged on what it holds (docs/decisions/0002-references-external-refs.md).
 */
const PARSER_OPTIONS = {
  resolve: { external: false, file: false },
  dereference: { circular: 'ignore' },
} satisfies ParserOptions;

/** The longest title kept: it names the reference and is indexed. */
const MAX_TITLE_LENGTH = 200;
const MAX_PROBLEMS = 10;

/** Validates a parsed upload as Swagger 2.0 or OpenAPI 3.0/3.1 and gives its `info.title`. */
export async function validateDefinition(parsed: ParsedDefinition): Promise<{ title: string }> {
  const doc = parsed.value;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw fileProblem('The file is not an OpenAPI definition: its top level must be an object.');
  }
  const label = specificationLabel(doc as Record<string, unknown>);
  assertManageable(doc);

  let result: Awaited<ReturnType<typeof validate>>;
  try {
    // The parser dereferences in place; `doc` is not used afterwards except for its title.
    result = await validate(doc as Parameters<typeof validate>[0], PARSER_OPTIONS);
  } catch (error) {
    // The parser throws on some malformed input; that is the file's problem, never a 5xx.
    throw fileProblem(
      `Invalid ${label} definition: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!result.valid) {
    const problems = await describe(parsed, result.errors.slice(0, MAX_PROBLEMS));
    const first = problems[0];
    const message = first?.where
      ? `Invalid ${label} definition at ${pointerText(first.where)}${position(first.where)}: ${first.what}`
      : `Invalid ${label} definition: ${first?.what ?? 'rejected by the validator.'}`;
    throw new BadRequestError(
      message,
      problems.map(({ what, where }) => ({
        field: where ? `file#${where.pointer}` : 'file',
        message: `${what}${where ? position(where) : ''}`,
      })),
    );
  }

  const title = (doc as { info: { title: string } }).info.title;
  if (title.trim() === '') {
    throw new BadRequestError(`Invalid ${label} definition: info.title must not be empty.`, [
      { field: 'file#/info/title', message: 'must not be empty' },
    ]);
  }
  if (title.includes('\u0000')) {
    throw new BadRequestError(`Invalid ${label} definition: info.title must not contain NUL characters.`, [
      { field: 'file#/info/title', message: 'must not contain NUL characters' },
    ]);
  }
  if (title.length > MAX_TITLE_LENGTH) {
    throw new BadRequestError(
      `Invalid ${label} definition: info.title must be at most ${MAX_TITLE_LENGTH} characters.`,
      [{ field: 'file#/info/title', message: `must be at most ${MAX_TITLE_LENGTH} characters` }],
    );
  }
  return { title };
}

function specificationLabel(doc: Record<string, unknown>): string {
  if ('swagger' in doc) {
    if (doc.swagger === '2.0') return 'Swagger 2.0';
    if (typeof doc.swagger !== 'string') {
      throw fileProblem(`The 'swagger' field must be the string '2.0' (in YAML: swagger: "2.0").`);
    }
    throw fileProblem(`Swagger version '${doc.swagger}' is not supported: only '2.0' is.`);
  }
  if ('openapi' in doc) {
    if (typeof doc.openapi !== 'string') {
      throw fileProblem(
        `The 'openapi' field must be a version string such as '3.1.0' (in YAML: openapi: "3.1.0").`,
      );
    }
    const version = /^3\.([01])\./.exec(doc.openapi);
    if (version) return `OpenAPI 3.${version[1]}`;
    throw fileProblem(
      `OpenAPI version '${doc.openapi}' is not supported: upload OpenAPI 3.0, 3.1 or Swagger 2.0.`,
    );
  }
  throw fileProblem(
    "The file is not an OpenAPI definition: it has neither an 'openapi' (3.0, 3.1) nor a 'swagger' (2.0) field.",
  );
}

interface Problem {
  what: string;
  where?: Location;
}

async function describe(parsed: ParsedDefinition, errors: Array<{ message: string }>): Promise<Problem[]> {
  let printed: unknown;
  const problems: Problem[] = [];
  for (const { message } of errors) {
    const [firstLine = message] = message.split('\n');
    // The parser prefixes the schema keyword in capitals: 'ADDITIONAL PROPERTY must NOT have …'.
    const what = firstLine.replace(/^[A-Z]+(?: [A-Z]+)* (?=[a-z])/, '').trim();
    const quoted = /^>\s*(\d+)\s*\|/m.exec(message);
    if (!quoted) {
      problems.push({ what });
      continue;
    }
    printed ??= await dereferenced(parsed);
    const pointer = printed === undefined ? undefined : pointerAtPrettyLine(printed, Number(quoted[1]));
    problems.push(pointer === undefined ? { what } : { what, where: locate(parsed.text, pointer) });
  }
  return problems;
}

async function dereferenced(parsed: ParsedDefinition): Promise<unknown> {
  try {
    const fresh = parseStoredDefinition(parsed.text, parsed.format);
    return await dereference(fresh as Parameters<typeof dereference>[0], PARSER_OPTIONS);
  } catch {
    return undefined;
  }
}

const pointerText = (where: Location) => (where.pointer === '' ? 'the document root' : where.pointer);

function position(where: Location): string {
  return where.line === undefined ? '' : ` (line ${where.line}, column ${where.column})`;
}
