import createClient from 'openapi-fetch';
import type { components, paths } from '../../packages/client/src/api.ts';

type Page = components['schemas']['Page'];

export interface FlowResult {
  created: Page;
  /** the create sent again with the same Idempotency-Key */
  retried: { id: number; replayed: boolean };
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

  // The headers the document declares are typed parameters: a retried create names its key.
  const create = () =>
    api.POST('/documentation/{id}/page', {
      params: { path: { id: documentationId }, header: { 'Idempotency-Key': `flow-${documentationId}` } },
      body: { title: 'Generated client', content: '# Hello\n\nFrom a *typed* client.' },
    });
  const created = await create();
  if (created.data === undefined) throw new Error(`create: ${created.error.error.message}`);
  const retried = await create();
  if (retried.data === undefined) throw new Error(`retry: ${retried.error.error.message}`);

  const published = await api.PUT('/page/{id}/publish', {
    params: {
      path: { id: created.data.id },
      header: { 'If-Match': created.response.headers.get('ETag') ?? '' },
    },
  });
  if (published.data === undefined) throw new Error(`publish: ${published.error.error.message}`);

  const read = await api.GET('/page/{id}', {
    params: { path: { id: published.data.id }, query: { format: 'html' } },
  });
  if (read.data === undefined) throw new Error(`read: ${read.error.error.message}`);

  return {
    created: created.data,
    retried: {
      id: retried.data.id,
      replayed: retried.response.headers.get('Idempotent-Replayed') === 'true',
    },
    published: published.data,
    read: read.data,
  };
}
