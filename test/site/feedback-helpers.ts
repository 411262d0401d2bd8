import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../src/deps.ts';
import { client, type Response } from '../helpers/test-app.ts';

/** POSTs "Was this page helpful?" as a browser's form sends it, to `{root}/_site/feedback`. */
export async function sendFeedback(
  app: FastifyInstance,
  root: string,
  fields: Record<string, string> | string,
  headers: Record<string, string> = {},
  /** the client's address (each has its own rate limit) */
  remoteAddress = '127.0.0.1',
): Promise<Response> {
  return await app.inject({
    method: 'POST',
    remoteAddress,
    url: `${root}/_site/feedback`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: typeof fields === 'string' ? fields : new URLSearchParams(fields).toString(),
  });
}

/** The project's feedback rows, oldest first, read straight from the table. */
export function storedFeedback(deps: Deps, projectId: number) {
  return deps.database.db
    .selectFrom('feedback')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id')
    .execute();
}

/** GET /feedback with a key. */
export function listFeedback(app: FastifyInstance, key: string, query = '') {
  return client(app, key).get(`/feedback${query === '' ? '' : `?${query}`}`);
}
