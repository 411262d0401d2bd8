import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { createDocumentation, createVersion, createWorld } from '../helpers/factories.ts';
import { client } from '../helpers/test-app.ts';

/** A public project with a published version `v1` and section `guides`, and an all-permission key. */
export async function createPublicSite(deps: Deps) {
  return createWorld(deps, { access: 'public' });
}

export { createDocumentation, createVersion };

/** Creates a page and, unless told not to, publishes it; answers its id. */
export async function sitePage(
  app: FastifyInstance,
  key: string,
  sectionId: number,
  input: { title: string; content?: string; slug?: string; listed?: boolean; publish?: boolean },
): Promise<number> {
  const api = client(app, key);
  const res = await api.post(`/documentation/${sectionId}/page`, {
    title: input.title,
    content: input.content ?? `${input.title} is a page.\n\n## Overview\n\nText.`,
    ...(input.slug !== undefined ? { slug: input.slug } : {}),
  });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json<{ id: number }>().id;
  if (input.publish !== false) {
    const published = await api.put(`/page/${id}/publish`);
    expect(published.statusCode, published.body).toBe(200);
  }
  // Set after publishing, which lists the page.
  if (input.listed !== undefined) {
    const listed = await api.put(`/page/${id}`, { listed: input.listed });
    expect(listed.statusCode, listed.body).toBe(200);
  }
  return id;
}

/** GET of a site address (not under /api/v1), with optional headers. */
export function visit(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers });
}
