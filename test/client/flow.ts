import createClient from 'openapi-fetch';
import type { components, paths } from './api.ts';

type Page = components['schemas']['Page'];

export interface FlowResult {
  created: Page;
  published: Page;
  /** the page read back with its contents rendered as HTML */
  read: Page;
}

/**
 * What a pipeline does with a client generated from Quire's document: create a page, publish it,
 * read it as HTML. Written as such a client's author would, with no cast anywhere: if the document
 * types a parameter, a body or an answer wrongly, this file stops compiling.
 */
export async function createPublishRead(
  baseUrl: string,
  key: string,
  documentationId: number,
): Promise<FlowResult> {
  const api = createClient<paths>({ baseUrl, headers: { 'X-Api-Key': key } });

  const created = await api.POST('/documentation/{id}/page', {
    params: { path: { id: documentationId } },
    body: { title: 'Generated client', content: '# Hello\n\nFrom a *typed* client.' },
  });
  if (created.data === undefined) throw new Error(`create: ${created.error.error.message}`);

  const published = await api.PUT('/page/{id}/publish', { params: { path: { id: created.data.id } } });
  if (published.data === undefined) throw new Error(`publish: ${published.error.error.message}`);

  const read = await api.GET('/page/{id}', {
    params: { path: { id: published.data.id }, query: { format: 'html' } },
  });
  if (read.data === undefined) throw new Error(`read: ${read.error.error.message}`);

  return { created: created.data, published: published.data, read: read.data };
}
