import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { PagesService } from '../modules/pages/pages.service.ts';
import type { ReferencesService } from '../modules/references/references.service.ts';
import type { KeyGate } from './mcp.key-gate.ts';
import { allOf, type KeySourceDeps } from './mcp.key-source.ts';
import { jsonResult, toolCall, type ToolFailure } from './mcp.results.ts';
import type { CallerOf } from './mcp.transport.ts';
import { searchReplace } from './mcp.search-replace.ts';

/** Text PostgreSQL can store: both databases answer alike (as the API's NUL check, src/http/pipeline.ts). */
const text = (max: number, min = 0) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((value) => !value.includes('\u0000'), 'must not contain NUL characters');
const Id = z.number().int().min(1).max(2_147_483_647);
const Slug = z.string().regex(/^[a-z0-9-]{1,100}$/, 'must be 1-100 lower-case letters, digits and hyphens');
const Content = text(4_000_000);
/** A reference file, at most as large as an upload over HTTP (8 MiB). */
const MAX_DEFINITION_CHARS = 8 * 1024 * 1024;

export const WriterInputs = {
  create_page: z.strictObject({
    documentationId: Id,
    title: text(255, 1),
    content: Content,
    slug: Slug.optional(),
    categoryTitle: text(255, 1).optional(),
  }),
  update_page: z.strictObject({
    id: Id,
    title: text(255, 1).optional(),
    content: Content.optional(),
    slug: Slug.optional(),
  }),
  publish_page: z.strictObject({ id: Id }),
  upload_reference: z.strictObject({
    versionId: z.union([Id, z.literal('latest')]),
    definition: text(MAX_DEFINITION_CHARS, 1),
    publish: z.boolean().optional(),
  }),
  search_replace: z.strictObject({
    find: text(1000, 1),
    replace: text(100_000),
    versionId: Id.optional(),
    apply: z.boolean().optional(),
  }),
};

export interface WriterDeps extends KeySourceDeps {
  pages: PagesService;
  references: ReferencesService;
}

/**
 * The writer's tools (extensions.md §9): each the use case of its HTTP operation, called with the
 * key's context after the operation's rate limit and permission, and under the request's
 * Idempotency-Key when it has one.
 */
/** Whom a writer tool answers: the request's key, and how its failures are answered. */
export interface WriterCaller {
  gate: KeyGate;
  failed: ToolFailure;
}

export function registerWriterTools(
  server: McpServer,
  deps: WriterDeps,
  callerOf: CallerOf<WriterCaller>,
): void {
  server.registerTool(
    'create_page',
    {
      description:
        'Create a page in a documentation section (its id): the content (Darkdown) is the draft; the page is not listed until published.',
      inputSchema: WriterInputs.create_page,
    },
    (args, extra) => {
      const { gate, failed } = callerOf(extra);
      return toolCall(failed, async () => {
        await gate.admit('createPage', 'page.edit');
        return gate.write('create_page', args, async (ctx) => {
          const { documentationId, ...input } = args;
          return jsonResult({ ...(await deps.pages.create(ctx, documentationId, input)) });
        });
      });
    },
  );
  server.registerTool(
    'update_page',
    {
      description:
        "Update a page's title, slug or draft content; absent fields stay. A title without a slug makes the slug again from the title.",
      inputSchema: WriterInputs.update_page,
    },
    (args, extra) => {
      const { gate, failed } = callerOf(extra);
      return toolCall(failed, async () => {
        await gate.admit('updatePage', 'page.edit');
        return gate.write('update_page', args, async (ctx) => {
          const { id, ...input } = args;
          return jsonResult({ ...(await deps.pages.update(ctx, id, input)) });
        });
      });
    },
  );
  server.registerTool(
    'publish_page',
    {
      description: "Publish a page's draft: readers see it, and it is listed.",
      inputSchema: WriterInputs.publish_page,
    },
    (args, extra) => {
      const { gate, failed } = callerOf(extra);
      return toolCall(failed, async () => {
        await gate.admit('publishPage', 'page.publish');
        return gate.write('publish_page', args, async (ctx) =>
          jsonResult({ ...(await deps.pages.publish(ctx, args.id)) }),
        );
      });
    },
  );
  server.registerTool(
    'upload_reference',
    {
      description:
        "Upload an OpenAPI 3.x or Swagger 2.0 definition (JSON or YAML text) to a version: it updates the version's reference of the same title, or creates one; published at once when `publish` is true.",
      inputSchema: WriterInputs.upload_reference,
    },
    (args, extra) => {
      const { gate, failed } = callerOf(extra);
      return toolCall(failed, async () => {
        // The permission depends on `publish`: the service checks it, as for the HTTP upload.
        await gate.admit('uploadReference', null);
        return gate.write('upload_reference', args, async (ctx) => {
          const reference = await deps.references.upload(ctx, {
            versionId: args.versionId,
            publish: args.publish ?? false,
            readFile: () => Promise.resolve(Buffer.from(args.definition, 'utf8')),
          });
          return jsonResult({ ...reference });
        });
      });
    },
  );
  server.registerTool(
    'search_replace',
    {
      description:
        "Find text in the pages' current contents (the draft, else the published text) and replace it. A dry run unless `apply` is true: it lists the pages and counts; applied, each page's draft is updated (publish them to show readers).",
      inputSchema: WriterInputs.search_replace,
    },
    (args, extra) => {
      const { gate, failed } = callerOf(extra);
      return toolCall(failed, async () => {
        await gate.admit('listAll', 'project.read');
        await gate.admit('readPage', 'page.read');
        const listing = await allOf(deps, gate, false);
        const run = () => searchReplace(gate, deps.pages, listing, args);
        return args.apply === true
          ? gate.write('search_replace', args, (ctx) => run()(ctx))
          : run()(gate.context);
      });
    },
  );
}
