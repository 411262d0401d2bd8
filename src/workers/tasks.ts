/**
 * What the worker threads run (src/workers/pool.ts). Each task is a plain object in and a plain
 * object out: a refusal of the caller's input comes back as a result, not as an error, so its
 * message and details survive the trip between threads.
 */
import { renderContent, type ContentFormat, type RenderContext } from '../content/index.ts';
import { AppError, type FieldProblem } from '../errors.ts';
import { convertDefinition } from '../modules/references/definition.converter.ts';
import type { DefinitionFormat } from '../modules/references/definition.parser.ts';
import { checkDefinition } from '../modules/references/definition.check.ts';

export type Task =
  | { kind: 'checkDefinition'; bytes: Uint8Array }
  | { kind: 'convertDefinition'; text: string; from: DefinitionFormat; to: DefinitionFormat }
  | { kind: 'render'; source: string; format: Exclude<ContentFormat, 'darkdown'>; ctx: RenderContext }
  | { kind: 'warm' };

export type TaskResult =
  | {
      kind: 'checkDefinition';
      ok: true;
      text: string;
      format: DefinitionFormat;
      title: string;
    }
  | { kind: 'checkDefinition'; ok: false; status: number; message: string; details?: FieldProblem[] }
  | { kind: 'convertDefinition'; text: string }
  | { kind: 'render'; output: string }
  | { kind: 'warm' };

/** A small definition that uses what large ones use: paths, parameters, schemas, a local $ref. */
const WARM_DEFINITION = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Warm-up', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: {
          '200': {
            description: 'An item',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } },
          },
        },
      },
    },
  },
  components: { schemas: { Item: { type: 'object', properties: { id: { type: 'integer' } } } } },
});

export default async function run(task: Task): Promise<TaskResult> {
  switch (task.kind) {
    case 'checkDefinition':
      try {
        const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
        const checked = await checkDefinition(bytes);
        return { kind: 'checkDefinition', ok: true, ...checked };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return {
          kind: 'checkDefinition',
          ok: false,
          status: error.status,
          message: error.message,
          ...(error.details ? { details: error.details } : {}),
        };
      }
    case 'convertDefinition':
      return { kind: 'convertDefinition', text: convertDefinition(task.text, task.from, task.to) };
    case 'render':
      return { kind: 'render', output: renderContent(task.source, task.format, task.ctx) ?? '' };
    case 'warm': {
      const { text } = await checkDefinition(Buffer.from(WARM_DEFINITION));
      convertDefinition(text, 'json', 'yaml');
      renderContent('# Warm-up\n\nA *page*.', 'html');
      return { kind: 'warm' };
    }
  }
}
