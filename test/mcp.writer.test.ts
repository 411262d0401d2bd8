import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { auditEntries, createKey, createVersion, createWorld } from './helpers/factories.ts';
import { call, listening, mcpClient, ok, burst, textOf, toolError } from './helpers/mcp-client.ts';
import { client, useTestApp } from './helpers/test-app.ts';
import { petsDefinition } from './site/reference-definitions.ts';
import { createDocumentation, sitePage } from './site/site-helpers.ts';

const t = useTestApp();

interface Page {
  id: number;
  title: string;
  slug: string;
  path: string;
  listed: boolean;
  contentDraft: string | null;
  contentPublished: string | null;
}
interface Listed {
  title: string;
  url: string;
}

/**
 * A project with a published page, a draft never published and an unlisted page in v1; a page in v2;
 * another project with a page; and keys: all permissions, read-only, listing-only, v1-only.
 */
async function world() {
  const w = await createWorld(t.deps, { access: 'public' });
  await sitePage(t.app, w.key, w.documentation.id, {
    title: 'Install',
    slug: 'install',
    content: 'Use the wombat tool.',
  });
  await sitePage(t.app, w.key, w.documentation.id, {
    title: 'Draft',
    slug: 'draft',
    publish: false,
    content: 'A wombat draft.',
  });
  await sitePage(t.app, w.key, w.documentation.id, {
    title: 'Quiet',
    slug: 'quiet',
    listed: false,
    content: 'Quiet.',
  });
  const v2 = await createVersion(t.deps, w.project.id, { name: 'v2', slug: 'v2', published: true });
  const v2Guides = await createDocumentation(t.deps, v2.id, { title: 'Guides', slug: 'guides' });
  await sitePage(t.app, w.key, v2Guides.id, { title: 'Next', slug: 'next', content: 'The wombat of v2.' });
  const other = await createWorld(t.deps, { access: 'public' });
  await sitePage(t.app, other.key, other.documentation.id, {
    title: 'Theirs',
    slug: 'theirs',
    content: 'Their wombat.',
  });
  const reader = await createKey(t.deps, w.project.id, {
    permissions: ['page.read', 'search.read', 'project.read', 'reference.read'],
  });
  const lister = await createKey(t.deps, w.project.id, { permissions: ['project.read', 'search.read'] });
  const scoped = await createKey(t.deps, w.project.id, { permissions: 'all', versions: [w.version.id] });
  const origin = await listening(t.app);
  const connect = (key: string, headers: Record<string, string> = {}) =>
    mcpClient(`${origin}/api/v1/mcp`, { 'x-api-key': key, ...headers });
  return { ...w, v2, other, reader: reader.key, lister: lister.key, scoped: scoped.key, origin, connect };
}

const create = (c: Client, documentationId: number, title: string, content = 'Fresh text.') =>
  ok<Page>(c, 'create_page', { documentationId, title, content });

describe('the writer MCP server at /api/v1/mcp', () => {
  it('needs an API key, in X-Api-Key or as a bearer token', async () => {
    const w = await world();
    const url = `${w.origin}/api/v1/mcp`;
    await expect(mcpClient(url)).rejects.toThrow(/401|No API Key/);
    await expect(mcpClient(url, { 'x-api-key': 'qk_nope' })).rejects.toThrow(/401|invalid/);
    const bearer = await mcpClient(url, { authorization: `Bearer ${w.key}` });
    const tools = (await bearer.listTools()).tools.map((tool) => tool.name).sort();
    expect(tools).toEqual([
      'create_page',
      'get_operation',
      'list_pages',
      'publish_page',
      'read_page',
      'search',
      'search_replace',
      'update_page',
      'upload_reference',
    ]);
    await bearer.close();
    const get = await fetch(url, { headers: { 'x-api-key': w.key } });
    expect(get.status).toBe(405);
    const cross = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': w.key, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(cross.status).toBe(403);
  });

  it('creates, updates and publishes a page through the use cases, audited as the key', async () => {
    const w = await world();
    const c = await w.connect(w.key);
    const created = await create(c, w.documentation.id, 'Agent page', 'First words.');
    expect(created.listed).toBe(false);
    expect(created.contentDraft).toBe('First words.');
    const updated = await ok<Page>(c, 'update_page', { id: created.id, content: 'Second words.' });
    expect(updated.contentDraft).toBe('Second words.');
    const published = await ok<Page>(c, 'publish_page', { id: created.id });
    expect(published.listed).toBe(true);
    expect(published.contentPublished).toBe('Second words.');
    // The same page over HTTP.
    const res = await client(t.app, w.key).get(`/page/${created.id}`);
    expect(res.json<Page>().contentPublished).toBe('Second words.');
    const audit = await auditEntries(t.deps, w.project.id);
    const mine = audit.filter((entry) => entry.message.includes('Agent page'));
    expect(mine.length).toBeGreaterThanOrEqual(3);
    expect(mine.every((entry) => entry.api_key_label !== null)).toBe(true);
    // Readers see it on the site at once.
    const site = await fetch(`${w.origin}/sites/${w.project.id}/v1/guides/agent-page`);
    expect(site.status).toBe(200);
    await c.close();
  });

  it('gives a page.read key drafts, unlisted pages and its whole listing; a narrower key less', async () => {
    const w = await world();
    const reader = await w.connect(w.reader);
    const draft = await ok<{ markdown: string; contents: string; url: string }>(reader, 'read_page', {
      path: '/v1/guides/draft',
    });
    expect(draft.markdown).toContain('A wombat draft.');
    expect(draft.contents).toBe('draft');
    expect(draft.url).toBe(`${w.origin}/sites/${w.project.id}/v1/guides/draft`);
    const byUrl = await ok<{ contents: string }>(reader, 'read_page', {
      path: `${w.origin}/sites/${w.project.id}/v1/guides/install`,
    });
    expect(byUrl.contents).toBe('published');
    const all = await ok<{ pages: Listed[] }>(reader, 'list_pages', { version: 'v1' });
    expect(all.pages.map((p) => p.title).sort()).toEqual(['Draft', 'Install', 'Quiet']);
    expect(
      await toolError(reader, 'read_page', { path: `/sites/${w.other.project.id}/v1/guides/theirs` }),
    ).toMatch(/not found/i);
    const hits = await ok<{ hits: Listed[] }>(reader, 'search', { query: 'wombat' });
    const titles = hits.hits.map((h) => h.title).sort();
    expect(titles).toEqual(['Install', 'Next']);
    await reader.close();

    // Without page.read: only what readers see, and no page reads at all.
    const lister = await w.connect(w.lister);
    const listed = await ok<{ pages: Listed[] }>(lister, 'list_pages', { version: 'v1' });
    expect(listed.pages.map((p) => p.title)).toEqual(['Install']);
    expect(await toolError(lister, 'read_page', { path: '/v1/guides/install' })).toContain(
      "lacks the permission 'page.read'",
    );
    await lister.close();
  });

  it('keeps a version-scoped key to its versions', async () => {
    const w = await world();
    const c = await w.connect(w.scoped);
    expect(await toolError(c, 'read_page', { path: '/v2/guides/next' })).toContain(
      'no access to the version',
    );
    const pages = await ok<{ pages: Listed[] }>(c, 'list_pages', {});
    expect(pages.pages.some((p) => p.url.includes('/v2/'))).toBe(false);
    expect(await toolError(c, 'list_pages', { version: 'v2' })).toContain("No version 'v2'");
    const hits = await ok<{ hits: Listed[] }>(c, 'search', { query: 'wombat' });
    expect(hits.hits.map((h) => h.title)).toEqual(['Install']);
    const v2Section = (await client(t.app, w.key).get(`/version/${w.v2.id}/documentation`)).json<
      Array<{ id: number }>
    >()[0];
    expect(
      await toolError(c, 'create_page', {
        documentationId: v2Section?.id ?? 0,
        title: 'No',
        content: 'x',
      }),
    ).toContain('no access');
    const replaced = await ok<{ pages: Array<{ path: string }> }>(c, 'search_replace', {
      find: 'wombat',
      replace: 'numbat',
    });
    expect(replaced.pages.map((p) => p.path).sort()).toEqual(['v1/guides/draft', 'v1/guides/install']);
    await c.close();
  });

  it('refuses what the key may not do: a page.read key cannot create_page or apply search_replace', async () => {
    const w = await world();
    const c = await w.connect(w.reader);
    const message = await toolError(c, 'create_page', {
      documentationId: w.documentation.id,
      title: 'Nope',
      content: 'x',
    });
    expect(message).toContain("lacks the permission 'page.edit'");
    expect(message).toContain('(403)');
    const pages = (await client(t.app, w.key).get('/all')).json<{
      page: Record<string, { title: string }>;
    }>();
    expect(Object.values(pages.page).some((p) => p.title === 'Nope')).toBe(false);
    expect(await toolError(c, 'publish_page', { id: 1 })).toContain("lacks the permission 'page.publish'");
    await c.close();
    // Another project's section and page are not found, whatever the key may do in its own.
    const admin = await w.connect(w.key);
    const theirs = (await client(t.app, w.other.key).get('/all')).json<{ page: Record<string, unknown> }>();
    const theirPage = Number(Object.keys(theirs.page)[0]);
    expect(
      await toolError(admin, 'create_page', {
        documentationId: w.other.documentation.id,
        title: 'In',
        content: 'x',
      }),
    ).toMatch(/\(404\)/);
    expect(await toolError(admin, 'update_page', { id: theirPage, content: 'Taken over.' })).toMatch(
      /\(404\)/,
    );
    expect(await toolError(admin, 'publish_page', { id: theirPage })).toMatch(/\(404\)/);
    await admin.close();
    const again = await w.connect(w.reader);
    expect(
      await toolError(again, 'upload_reference', {
        versionId: w.version.id,
        definition: petsDefinition(),
        publish: true,
      }),
    ).toContain("lacks the permission 'reference.publish'");
    expect(await toolError(again, 'search_replace', { find: 'wombat', replace: 'x', apply: true })).toContain(
      "lacks the permission 'page.edit'",
    );
    await again.close();
  });

  it('uploads a reference, and gives its operations once published', async () => {
    const w = await world();
    const c = await w.connect(w.key);
    const uploaded = await ok<{ slug: string }>(c, 'upload_reference', {
      versionId: w.version.id,
      definition: petsDefinition(),
    });
    expect(
      await toolError(c, 'get_operation', { reference: uploaded.slug, operation: 'GET /pets' }),
    ).toContain('No published API reference');
    await ok(c, 'upload_reference', { versionId: 'latest', definition: petsDefinition(), publish: true });
    const op = await ok<{ method: string; path: string; url: string }>(c, 'get_operation', {
      reference: `/v1/ref/${uploaded.slug}`,
      operation: 'listPets',
    });
    expect(op).toMatchObject({ method: 'GET', path: '/pets' });
    expect(op.url).toBe(`${w.origin}/sites/${w.project.id}/v1/ref/${uploaded.slug}#listpets`);
    expect(
      await toolError(c, 'upload_reference', { versionId: w.version.id, definition: '{"openapi": 3' }),
    ).toMatch(/\(400\)/);
    await c.close();
  });

  it('replaces text as a dry run unless applied, through page updates', async () => {
    const w = await world();
    const c = await w.connect(w.key);
    const dry = await ok<{
      applied: boolean;
      pages: Array<{ path: string; count: number }>;
      replacements: number;
    }>(c, 'search_replace', { find: 'wombat', replace: 'numbat', versionId: w.version.id });
    expect(dry.applied).toBe(false);
    expect(dry.pages.map((p) => p.path).sort()).toEqual(['v1/guides/draft', 'v1/guides/install']);
    expect(dry.replacements).toBe(2);
    expect(
      (await ok<{ markdown: string }>(c, 'read_page', { path: 'v1/guides/install' })).markdown,
    ).toContain('wombat');
    const applied = await ok<{ applied: boolean }>(c, 'search_replace', {
      find: 'wombat',
      replace: 'numbat',
      versionId: w.version.id,
      apply: true,
    });
    expect(applied.applied).toBe(true);
    const install = await ok<{ markdown: string; contents: string }>(c, 'read_page', {
      path: 'v1/guides/install',
    });
    expect(install).toMatchObject({ contents: 'draft' });
    expect(install.markdown).toContain('numbat');
    // v2 untouched.
    expect((await ok<{ markdown: string }>(c, 'read_page', { path: 'v2/guides/next' })).markdown).toContain(
      'wombat',
    );
    await c.close();
  });

  it('replays a write under the same Idempotency-Key, and refuses the key for another call', async () => {
    const w = await world();
    const c = await w.connect(w.key, { 'idempotency-key': 'agent-create-1' });
    const first = await create(c, w.documentation.id, 'Once only');
    const again = await create(c, w.documentation.id, 'Once only');
    expect(again).toEqual(first);
    const all = (await client(t.app, w.key).get('/all')).json<{ page: Record<string, { title: string }> }>();
    expect(Object.values(all.page).filter((p) => p.title === 'Once only')).toHaveLength(1);
    expect(
      await toolError(c, 'create_page', {
        documentationId: w.documentation.id,
        title: 'Other',
        content: 'x',
      }),
    ).toMatch(/\(4\d\d\)/);
    await c.close();
  });

  it("counts calls in the operation's window, shared with HTTP", async () => {
    const w = await world();
    const c = await w.connect(w.key);
    for (let i = 0; i < 29; i += 1) await ok(c, 'list_pages', {});
    expect((await client(t.app, w.key).get('/all')).statusCode).toBe(200);
    expect(await toolError(c, 'list_pages', {})).toMatch(/Rate limit of 30 .* listAll.*\(429\)/);
    expect((await client(t.app, w.key).get('/all')).statusCode).toBe(429);
    await c.close();
  });

  it('answers calls of different keys at once each with its own key and its own id', async () => {
    const w = await world();
    const url = `${w.origin}/api/v1/mcp`;
    // Keys of two projects, a version-scoped key, and a key without page.read: each sees its own.
    const callers = [
      { key: w.key, tool: 'search', args: { query: 'wombat' }, answer: 'Install,Next' },
      { key: w.other.key, tool: 'search', args: { query: 'wombat' }, answer: 'Theirs' },
      { key: w.scoped, tool: 'search', args: { query: 'wombat' }, answer: 'Install' },
      { key: w.reader, tool: 'read_page', args: { path: '/v1/guides/draft' }, answer: 'draft' },
      { key: w.lister, tool: 'read_page', args: { path: '/v1/guides/draft' }, answer: 'refused' },
    ];
    const seen = (result: CallToolResult) => {
      if (result.isError === true) return textOf(result).includes("'page.read'") ? 'refused' : textOf(result);
      const content = result.structuredContent as { hits?: Listed[]; contents?: string };
      return (
        content.hits
          ?.map((h) => h.title)
          .sort()
          .join(',') ?? content.contents
      );
    };
    // Every caller sends id 1 and an id of its own, over and over, all at once.
    const calls = Array.from({ length: 8 }, (_, round) =>
      callers.flatMap((c, i) =>
        [1, 100 * (i + 1) + round].map((id) => ({
          url,
          headers: { 'x-api-key': c.key },
          id,
          name: c.tool,
          args: c.args,
          want: c.answer,
        })),
      ),
    ).flat();
    const answers = await burst(calls);
    expect(answers).toHaveLength(80);
    for (const [i, a] of answers.entries()) {
      expect({ status: a.status, id: a.id, answer: seen(a.result) }).toEqual({
        status: 200,
        id: calls[i]?.id,
        answer: calls[i]?.want,
      });
    }
  });

  it('answers bad input with a tool error naming the argument', async () => {
    const w = await world();
    const c = await w.connect(w.key);
    expect(await toolError(c, 'create_page', { documentationId: w.documentation.id, content: 'x' })).toMatch(
      /title/,
    );
    expect(await toolError(c, 'create_page', { documentationId: 'one', title: 'A', content: 'x' })).toMatch(
      /documentationId/,
    );
    expect(
      await toolError(c, 'create_page', { documentationId: 1, title: 'A', content: 'x', colour: 'red' }),
    ).toMatch(/colour/);
    expect(
      await toolError(c, 'create_page', {
        documentationId: w.documentation.id,
        title: 'A\u0000',
        content: 'x',
      }),
    ).toMatch(/NUL/);
    expect(await toolError(c, 'update_page', { id: 999_999, title: 'Gone' })).toMatch(/\(404\)/);
    expect(await toolError(c, 'update_page', { id: 1, slug: 'Not A Slug' })).toMatch(/slug/);
    expect(await toolError(c, 'create_page', { documentationId: 999_999, title: 'A', content: 'x' })).toMatch(
      /\(404\)/,
    );
    expect(await toolError(c, 'search_replace', { find: '', replace: 'x' })).toMatch(/find/);
    expect(await toolError(c, 'read_page', { path: 'guides' })).toMatch(/names no page/);
    const result = await call(c, 'publish_page', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/id/);
    await c.close();
  });
});
