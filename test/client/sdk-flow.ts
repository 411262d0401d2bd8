import { createQuireClient, type Schemas } from '../../packages/client/src/index.ts';

export interface SdkFlowResult {
  created: Schemas['Page'];
  published: Schemas['Page'];
  read: Schemas['Page'];
  reference: Schemas['Reference'];
  hits: number;
  exportBytes: number;
  revisions: Array<Schemas['Revision']>;
  webhook: Schemas['Webhook'];
  /** the page created by a write whose first answer was lost, and whether its retry was replayed */
  retried: { page: Schemas['Page']; replayed: boolean; requests: number };
}

/**
 * What a pipeline does with the SDK of packages/client, written as its author would, with no cast:
 * if the document types a parameter, a body or an answer wrongly, this file stops compiling.
 */
export async function sdkFlow(baseUrl: string, key: string, versionId: number, documentationId: number) {
  const quire = createQuireClient({ baseUrl, key });
  const { api } = quire;

  const created = await api.POST('/documentation/{id}/page', {
    params: { path: { id: documentationId } },
    body: { title: 'From the SDK', content: '# Hello\n\nFrom the *SDK*, about quokkas.' },
  });
  if (created.error !== undefined) throw new Error(`create: ${created.error.error.message}`);
  const id = created.data.id;

  const published = await api.PUT('/page/{id}/publish', { params: { path: { id } } });
  if (published.error !== undefined) throw new Error(`publish: ${published.error.error.message}`);

  const read = await api.GET('/page/{id}', { params: { path: { id }, query: { format: 'html' } } });
  if (read.error !== undefined) throw new Error(`read: ${read.error.error.message}`);

  const definition = 'openapi: 3.0.3\ninfo:\n  title: SDK pets\n  version: "1"\npaths: {}\n';
  const uploaded = await quire.uploadReference(versionId, new Blob([definition]), { fileName: 'pets.yaml' });
  if (uploaded.error !== undefined) throw new Error(`upload: ${uploaded.error.error.message}`);

  const search = await api.GET('/search', { params: { query: { query: 'quokkas' } } });
  if (search.error !== undefined) throw new Error(`search: ${search.error.error.message}`);

  const exported = await api.GET('/export', { parseAs: 'arrayBuffer' });
  if (exported.error !== undefined) throw new Error(`export: ${exported.error.error.message}`);

  const revisions: Array<Schemas['Revision']> = [];
  for await (const revision of quire.history(id, 1)) revisions.push(revision);

  const webhook = await api.POST('/webhooks', {
    body: { url: 'https://1.1.1.1/quire', events: ['page.published'] },
  });
  if (webhook.error !== undefined) throw new Error(`webhook: ${webhook.error.error.message}`);

  // The first answer of the write is lost on the way back; the client sends it again, same key.
  let requests = 0;
  const lossy = createQuireClient({
    baseUrl,
    key,
    backoffMs: 10,
    fetch: async (request) => {
      const response = await fetch(request);
      if (++requests === 1) throw new TypeError('fetch failed: the connection was reset');
      return response;
    },
  });
  const retried = await lossy.api.POST('/documentation/{id}/page', {
    params: { path: { id: documentationId } },
    body: { title: 'Written once', content: 'Even when the answer is lost.' },
  });
  if (retried.error !== undefined) throw new Error(`retry: ${retried.error.error.message}`);

  return {
    created: created.data,
    published: published.data,
    read: read.data,
    reference: uploaded.data,
    hits: search.data.nbHits,
    exportBytes: exported.data.byteLength,
    revisions,
    webhook: webhook.data,
    retried: {
      page: retried.data,
      replayed: retried.response.headers.get('idempotent-replayed') === 'true',
      requests,
    },
  } satisfies SdkFlowResult;
}
