import {
  LineCounter,
  parseDocument,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';
import { BadRequestError } from '../errors.ts';
import { jsonDepthExceeds, yamlDepthExceeds } from '../shared/nesting.ts';

export type DefinitionFormat = 'json' | 'yaml';

/** An uploaded file, decoded: `text` is kept byte for byte, `value` is what it means. */
export interface ParsedDefinition {
  text: string;
  format: DefinitionFormat;
  value: unknown;
}

/**
 * Aliases expand a small file into a huge value (the "billion laughs"); beyond this many the yaml
 * package stops with an error. Deliberately the package's own default, written down here.
 */
export const MAX_YAML_ALIASES = 100;

/**
 * YAML 1.2 core schema: no custom tags, and with `resolveKnownTags: false` not even `!!binary`,
 * `!!timestamp` or `!!set`; an unknown tag leaves its value a plain string. Nothing is executed.
 */
export const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  schema: 'core',
  resolveKnownTags: false,
  merge: false,
  prettyErrors: false,
};

/**
 * Nesting a file may have as written, checked on the text before it is parsed: the YAML reader and
 * the validators recurse once per level. The same bound applies once `$ref`s are expanded
 * (definition.limits.ts).
 */
export const MAX_DEFINITION_DEPTH = 400;

const tooDeep = () => fileProblem(`The file is nested too deeply: more than ${MAX_DEFINITION_DEPTH} levels.`);

const BOM = '\uFEFF';
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text to parse: the stored text keeps a byte-order mark, parsers must not see it. */
export const withoutBom = (text: string): string => (text.startsWith(BOM) ? text.slice(1) : text);

/**
 * Decodes and parses an uploaded definition. The format comes from the content: a file whose first
 * character is `{` or `[` is JSON (and must be valid JSON, so a broken JSON file is reported as such
 * rather than read as YAML flow style), anything else is YAML.
 */
export function parseDefinition(bytes: Buffer): ParsedDefinition {
  if (bytes.length === 0) throw fileProblem('The file is empty.');
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw fileProblem('The file is not UTF-8 text.');
  }
  // PostgreSQL text cannot hold NUL, and neither JSON nor YAML allows a raw one.
  if (text.includes('\0')) throw fileProblem('The file contains a NUL character.');
  const format = detectFormat(text);
  const deep = format === 'json' ? jsonDepthExceeds : yamlDepthExceeds;
  if (deep(text, MAX_DEFINITION_DEPTH)) throw tooDeep();
  return { text, format, value: format === 'json' ? parseJson(text) : parseYaml(text) };
}

/** The meaning of stored text; it parsed on upload, so it parses again. */
export function parseStoredDefinition(text: string, format: DefinitionFormat): unknown {
  return format === 'json' ? parseJson(text) : parseYaml(text);
}

function detectFormat(text: string): DefinitionFormat {
  const first = /\S/.exec(withoutBom(text))?.[0];
  return first === '{' || first === '[' ? 'json' : 'yaml';
}

function parseJson(text: string): unknown {
  const body = withoutBom(text);
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message);
    const what = message.replace(/\s*(in JSON )?at position \d+.*$/s, '');
    if (!position) throw fileProblem(`Invalid JSON: ${what}.`);
    const { line, col } = lineAndColumn(body, Number(position[1]));
    throw fileProblem(`Invalid JSON at line ${line}, column ${col}: ${what}.`);
  }
}

function parseYaml(text: string): unknown {
  const body = withoutBom(text);
  const lineCounter = new LineCounter();
  let value: unknown;
  try {
    const doc = parseDocument(body, { ...YAML_OPTIONS, lineCounter });
    const error = doc.errors[0];
    if (error) {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      throw fileProblem(`Invalid YAML at line ${line}, column ${col}: ${error.message}`);
    }
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    if (error instanceof BadRequestError) throw error;
    // Whatever nesting the scan did not see (aliases to deep nodes) still ends in a clean answer.
    if (error instanceof RangeError && /call stack/i.test(error.message)) throw tooDeep();
    // The alias bound (ReferenceError) and anything else the parser refuses is the file's problem.
    const message = error instanceof Error ? error.message : String(error);
    throw fileProblem(`Invalid YAML: ${message}`);
  }
  return value;
}

function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

export function fileProblem(message: string): BadRequestError {
  return new BadRequestError(message, [{ field: 'file', message }]);
}
