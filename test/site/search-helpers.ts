import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { visit } from './site-helpers.ts';

/** The results' addresses of a search page, in order (the links of the hits' titles). */
export const resultLinks = (html: string): string[] =>
  [...html.matchAll(/<h3><a href="([^"]*)">/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'));

export interface Suggestions {
  hits: Array<{ url: string; title: string; context: string }>;
  error?: string;
}

/** A site's search page for `q` (and `extra` parameters), expected to answer 200 with HTML. */
export async function searchPage(app: FastifyInstance, root: string, q: string, extra = '') {
  const res = await visit(app, `${root}/search?q=${encodeURIComponent(q)}${extra}`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  return res;
}

/** The site's suggestions for `q`, asked from a client address, expected to answer 200 with JSON. */
export async function suggestions(
  app: FastifyInstance,
  root: string,
  q: string,
  remoteAddress = '203.0.113.9',
) {
  const res = await app.inject({
    method: 'GET',
    url: `${root}/search/results.json?q=${encodeURIComponent(q)}`,
    remoteAddress,
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  return res.json<Suggestions>();
}
