import { parseDefinition, type DefinitionFormat } from './definition.parser.ts';
import { validateDefinition } from './definition.validator.ts';

/**
 * An uploaded file, parsed once and validated: its text as stored, its format and its `info.title`.
 * Runs in a worker thread (src/workers/tasks.ts); throws a 400 for a file that is not a definition.
 */
export async function checkDefinition(
  bytes: Buffer,
): Promise<{ text: string; format: DefinitionFormat; title: string }> {
  const parsed = parseDefinition(bytes);
  const { title } = await validateDefinition(parsed);
  return { text: parsed.text, format: parsed.format, title };
}
