import type { FastifyInstance } from 'fastify';
import { client } from './test-app.ts';

/** A multipart/form-data body built by the platform's own FormData, as a client would send it. */
export async function multipart(
  parts: Array<{ name: string; content: string | Buffer; filename?: string; type?: string }>,
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const part of parts) {
    if (part.filename === undefined && typeof part.content === 'string') form.append(part.name, part.content);
    else {
      const blob = new Blob(
        [typeof part.content === 'string' ? part.content : new Uint8Array(part.content)],
        { type: part.type ?? 'application/octet-stream' },
      );
      form.append(part.name, blob, part.filename ?? 'definition');
    }
  }
  const encoded = new Response(form);
  return {
    payload: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type') ?? '' },
  };
}

export interface UploadOptions {
  publish?: boolean;
  /** 'multipart' (default) or a raw body content type */
  as?: 'multipart' | 'application/json' | 'application/yaml' | 'text/yaml';
  filename?: string;
}

/** POST /version/{versionId}/reference with the file as multipart (default) or as a raw body. */
export async function upload(
  app: FastifyInstance,
  key: string,
  versionId: number | string,
  content: string | Buffer,
  options: UploadOptions = {},
) {
  const query = options.publish === undefined ? '' : `?publish=${options.publish}`;
  const url = `/version/${versionId}/reference${query}`;
  const as = options.as ?? 'multipart';
  if (as === 'multipart') {
    const body = await multipart([{ name: 'file', content, filename: options.filename ?? 'openapi.yaml' }]);
    return client(app, key).post(url, undefined, body);
  }
  return client(app, key).post(url, undefined, {
    payload: typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
    headers: { 'content-type': as },
  });
}

export function readDefinition(
  app: FastifyInstance,
  key: string,
  id: number,
  query: { draft?: boolean; format?: 'auto' | 'yaml' | 'json' } = {},
) {
  const params = new URLSearchParams();
  if (query.draft !== undefined) params.set('draft', String(query.draft));
  if (query.format !== undefined) params.set('format', query.format);
  const search = params.size > 0 ? `?${params.toString()}` : '';
  return client(app, key).get(`/reference/${id}/definition${search}`);
}

/** A small valid OpenAPI 3.0 document, as JSON text. */
export function openapiJson(title: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify(
    {
      openapi: '3.0.3',
      info: { title, version: '1.0.0' },
      paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } },
      ...extra,
    },
    null,
    2,
  );
}

/** A small valid OpenAPI 3.1 document, as YAML text (with a comment, which conversions drop). */
export function openapiYaml(title: string): string {
  return [
    '# Pet store',
    'openapi: 3.1.0',
    'info:',
    `  title: ${title}`,
    '  version: "2.0"',
    'paths:',
    '  /pets:',
    '    get:',
    '      responses:',
    "        '404':",
    '          description: None',
    "        '200':",
    '          description: The pets',
    '',
  ].join('\n');
}
