import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assertMay, type UseCaseContext } from '../auth/actor.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import type { Page } from '../modules/pages/pages.presenter.ts';
import type { PagesService } from '../modules/pages/pages.service.ts';
import type { KeyGate } from './mcp.key-gate.ts';
import type { AllProject } from './mcp.key-source.ts';
import { jsonResult } from './mcp.results.ts';

/** Pages one call may change: more is a sign the text is too common, or the version was forgotten. */
export const MAX_REPLACED_PAGES = 500;

export interface SearchReplaceInput {
  find: string;
  replace: string;
  versionId?: number | undefined;
  apply?: boolean | undefined;
}

/**
 * `search_replace`: every page of the listing the key may read (one version's, when given) whose
 * current contents (the draft, else the published text) hold `find`, with the count of each; applied,
 * each such page's draft becomes the replaced text through the page update use case, counted against
 * the key's `updatePage` limit page by page. Literal text, not a pattern: an agent's replacement is
 * exactly what it asked for.
 */
export function searchReplace(
  gate: KeyGate,
  pages: PagesService,
  listing: AllProject,
  input: SearchReplaceInput,
): (ctx: UseCaseContext) => Promise<CallToolResult> {
  return async (ctx) => {
    if (input.versionId !== undefined && listing.version[String(input.versionId)] === undefined) {
      throw new NotFoundError(`No version ${input.versionId} this key may read.`);
    }
    if (input.apply === true) assertMay(ctx.actor, 'page.edit');
    const sections = new Set(
      Object.entries(listing.documentation)
        .filter(([, d]) => input.versionId === undefined || d.versionId === input.versionId)
        .map(([id]) => Number(id)),
    );
    const ids = Object.entries(listing.page)
      .filter(([, p]) => sections.has(p.documentationId))
      .map(([id]) => Number(id))
      .sort((a, b) => a - b);
    const found: Array<{ id: number; title: string; path: string; count: number; contents: string }> = [];
    for (const id of ids) {
      const page = JSON.parse((await pages.getJson(ctx, id, 'darkdown')).body.toString()) as Page;
      const contents = page.contentDraft ?? page.contentPublished ?? '';
      const count = contents.split(input.find).length - 1;
      if (count > 0) found.push({ id, title: page.title, path: page.path, count, contents });
    }
    if (input.apply === true && found.length > MAX_REPLACED_PAGES) {
      throw new BadRequestError(
        `The text is in ${found.length} pages; one call changes at most ${MAX_REPLACED_PAGES}. Name a versionId, or find something more precise.`,
      );
    }
    if (input.apply === true) {
      for (const page of found) {
        await gate.admit('updatePage', 'page.edit');
        await pages.update(ctx, page.id, { content: page.contents.split(input.find).join(input.replace) });
      }
    }
    return jsonResult({
      applied: input.apply === true,
      pages: found.map(({ id, title, path, count }) => ({ id, title, path, count })),
      replacements: found.reduce((sum, page) => sum + page.count, 0),
    });
  };
}
