/**
 * What the worker threads run (src/workers/pool.ts). Each task is a plain object in and a plain
 * object out: a refusal of the caller's input comes back as a result, not as an error, so its
 * message and details survive the trip between threads.
 */
import { move } from 'piscina';
import { autoLinkTargets, renderContent, type ContentFormat, type RenderContext } from '../content/index.ts';
import { descriptionHtml } from '../content/description-html.ts';
import { scanContent, type ContentScan } from '../content/link-scan.ts';
import { extractSections, type ContentSection } from '../content/sections.ts';
import { AppError, type FieldProblem } from '../errors.ts';
import { convertDefinition } from '../openapi/convert-definition.ts';
import { checkDefinition } from '../openapi/definition.check.ts';
import { diffStoredDefinitions } from '../openapi/definition-diff.ts';
import type { ChangeReport } from '../openapi/definition-diff.types.ts';
import { parseStoredDefinition, type DefinitionFormat } from '../openapi/definition.parser.ts';
import { operationsInPlace, type IndexedOperation } from '../openapi/reference-operations.ts';
import { buildReferenceView } from '../openapi/reference-view.ts';
import type { ReferenceView } from '../openapi/reference-view.types.ts';
import { sourceDigest, utf8Text } from '../shared/serialised.ts';

export type Task =
  | { kind: 'checkDefinition'; bytes: Uint8Array }
  | { kind: 'convertDefinition'; text: string; from: DefinitionFormat; to: DefinitionFormat }
  /** the change report from one stored definition to another (extensions.md §8) */
  | { kind: 'diffDefinitions'; from: StoredText; to: StoredText }
  /** a page's Darkdown, as text or as its UTF-8 bytes */
  | { kind: 'inspect'; source: string | Uint8Array }
  /** a large page's published text split for the search index */
  | { kind: 'pageSections'; source: string; variables: Readonly<Record<string, unknown>> }
  | { kind: 'render'; source: string | Uint8Array; format: ContentFormat; ctx: RenderContext }
  | { kind: 'referenceOperations'; definition: string | Uint8Array; format: DefinitionFormat }
  /** a published definition as the reader site's reference page shows it */
  | { kind: 'referenceView'; definition: string | Uint8Array; format: DefinitionFormat }
  /** pages' Darkdown contents read for their links and heading anchors (the broken-links report) */
  | { kind: 'scanLinks'; sources: Array<string | Uint8Array>; variables: Readonly<Record<string, unknown>> }
  | { kind: 'warm' };

export interface StoredText {
  text: string | Uint8Array;
  format: DefinitionFormat;
}

export interface TaskResults {
  checkDefinition:
    | { kind: 'checkDefinition'; ok: true; text: string; format: DefinitionFormat; title: string }
    | { kind: 'checkDefinition'; ok: false; status: number; message: string; details?: FieldProblem[] };
  convertDefinition: { kind: 'convertDefinition'; text: string };
  diffDefinitions: { kind: 'diffDefinitions'; report: ChangeReport };
  inspect: { kind: 'inspect'; digest: string; linkTargets: string[] };
  pageSections: { kind: 'pageSections'; sections: ContentSection[] };
  /**
   * The output as a JSON string literal, UTF-8 encoded. Its buffer moves to the main thread rather
   * than being copied, which the pool does only for a result that is itself the moved value.
   */
  render: Uint8Array;
  referenceOperations: { kind: 'referenceOperations'; operations: IndexedOperation[] };
  /**
   * The view (ReferenceView, or null when the stored text no longer parses or is no document) as
   * JSON, UTF-8 encoded and moved: reading JSON on the main thread takes a fraction of the time
   * rebuilding a cloned tree of tens of thousands of small objects takes.
   */
  referenceView: Uint8Array;
  /** one scan per source, in the same order */
  scanLinks: { kind: 'scanLinks'; scans: ContentScan[] };
  warm: { kind: 'warm' };
}

export type TaskResult = TaskResults[keyof TaskResults];

/**
 * A task as the pool sends it: `started` is shared with the main thread, which bounds the task's
 * time from the moment written there (milliseconds after `submitted`, plus one; 0 until then).
 */
export interface TaskEnvelope {
  task: Task;
  started: Int32Array;
  submitted: number;
}

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

export default function runEnvelope({ task, started, submitted }: TaskEnvelope): Promise<TaskResult> {
  Atomics.store(started, 0, Math.max(1, Date.now() - submitted + 1));
  return run(task);
}

export async function run(task: Task): Promise<TaskResult> {
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
    case 'diffDefinitions':
      return { kind: 'diffDefinitions', report: diffStoredDefinitions(task.from, task.to) };
    case 'inspect': {
      const source = utf8Text(task.source);
      return { kind: 'inspect', digest: sourceDigest(source), linkTargets: autoLinkTargets(source) };
    }
    case 'pageSections':
      return { kind: 'pageSections', sections: extractSections(task.source, { variables: task.variables }) };
    case 'render': {
      const source = utf8Text(task.source);
      const output = task.format === 'darkdown' ? source : renderContent(source, task.format, task.ctx);
      // An encoder's array owns its buffer (Buffer.from may hand out a slice of a shared pool), so
      // the buffer can move to the main thread as it is.
      const json = new TextEncoder().encode(JSON.stringify(output ?? ''));
      return move(json) as Uint8Array;
    }
    case 'referenceOperations':
      return {
        kind: 'referenceOperations',
        operations: await operationsInPlace(task.definition, task.format),
      };
    case 'referenceView':
      return move(
        new TextEncoder().encode(JSON.stringify(referenceViewOf(task.definition, task.format))),
      ) as Uint8Array;
    case 'scanLinks':
      return {
        kind: 'scanLinks',
        scans: task.sources.map((source) => scanContent(utf8Text(source), task.variables)),
      };
    case 'warm': {
      const { text } = await checkDefinition(Buffer.from(WARM_DEFINITION));
      convertDefinition(text, 'json', 'yaml');
      diffStoredDefinitions(
        { text, format: 'json' },
        { text: WARM_DEFINITION.replace('"id"', '"key"'), format: 'json' },
      );
      renderContent('# Warm-up\n\nA *page*.', 'html');
      return { kind: 'warm' };
    }
  }
}

function referenceViewOf(definition: string | Uint8Array, format: DefinitionFormat): ReferenceView | null {
  let document: unknown;
  try {
    document = parseStoredDefinition(utf8Text(definition), format);
  } catch {
    // Stored definitions parsed when they were uploaded; one that no longer does has nothing to show.
    return null;
  }
  return buildReferenceView(document, descriptionHtml);
}
