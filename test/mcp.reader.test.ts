import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { adminContext, createProject, createVersion, createWorld } from './helpers/factories.ts';
import { call, listening, mcpClient, ok, burst, textOf, toolError } from './helpers/mcp-client.ts';
import { upload } from './helpers/references.ts';
import { useTestApp } from './helpers/test-app.ts';
import { cookieOf, hs256Secret } from './site/login-helpers.ts';
import { petsDefinition } from './site/reference-definitions.ts';
import { createDocumentation, sitePage, visit } from './site/site-helpers.ts';

const t = useTestApp({ env: { RATE_LIMIT_SCALE: '10' } });

interface Hit {
  title: string;
  url: string;
  snippet: string;
}
interface Listed {
  title: string;
  url: string;
  description: string | null;
}

/**
 * A public project: a published page, an unlisted one, a draft never published, a page in an
 * unpublished version, a published reference; and another project with a published page.
 */
async function publicSite() {
  const w = await createWorld(t.deps, { access: 'public' });
  const { key } = w;
  const section = w.documentation.id;
  await sitePage(t.app, key, section, {
    title: 'Install the wombat',
    slug: 'install',
    content: 'A wombatine page.\n\n## Steps\n\nRun the quokkafier.',
  });
  await sitePage(t.app, key, section, {
    title: 'Hidden corner',
    slug: 'hidden',
    listed: false,
    content: 'Unlisted numbat text.',
  });
  await sitePage(t.app, key, section, {
    title: 'Draft only',
    slug: 'draft',
    publish: false,
    content: 'Secret bilbyword.',
  });
  const hiddenVersion = await createVersion(t.deps, w.project.id, {
    name: 'v2',
    slug: 'v2',
    published: false,
  });
  const hiddenSection = await createDocumentation(t.deps, hiddenVersion.id, {
    title: 'Guides',
    slug: 'guides',
  });
  await sitePage(t.app, key, hiddenSection.id, {
    title: 'Future',
    slug: 'future',
    content: 'Dingoword coming.',
  });
  const ref = await upload(t.app, key, w.version.id, petsDefinition(), {
    as: 'application/json',
    publish: true,
  });
  expect(ref.statusCode, ref.body).toBe(201);
  const other = await createWorld(t.deps, { access: 'public' });
  await sitePage(t.app, other.key, other.documentation.id, {
    title: 'Elsewhere',
    slug: 'elsewhere',
    content: 'Wombatine too.',
  });
  const origin = await listening(t.app);
  const root = `${origin}/sites/${w.project.id}`;
  return { ...w, other, origin, root, reference: ref.json<{ slug: string }>() };
}

describe('the reader MCP server at {site}/mcp', () => {
  it('lists its four tools and finds what readers find, with site URLs and snippets', async () => {
    const s = await publicSite();
    const client = await mcpClient(`${s.root}/mcp`);
    const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(tools).toEqual(['get_operation', 'list_pages', 'read_page', 'search']);

    const { hits } = await ok<{ hits: Hit[] }>(client, 'search', { query: 'quokkafier' });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]?.url).toBe(`${s.root}/v1/guides/install#steps`);
    expect(hits[0]?.snippet).toContain('quokkafier');
    // The hit's URL opens on the site.
    const opened = await visit(t.app, new URL(hits[0]?.url ?? '').pathname);
    expect(opened.statusCode).toBe(200);

    // Drafts, unpublished versions and other projects are not found.
    for (const query of ['bilbyword', 'dingoword']) {
      expect((await ok<{ hits: Hit[] }>(client, 'search', { query })).hits).toEqual([]);
    }
    const wombat = await ok<{ hits: Hit[] }>(client, 'search', { query: 'wombatine' });
    expect(wombat.hits.every((hit) => hit.url.startsWith(s.root))).toBe(true);
    expect(await toolError(client, 'search', { query: 'x', version: 'v2' })).toContain("No version 'v2'");
    await client.close();
  });

  it("answers calls to two sites at once each with its own site's pages and its own id", async () => {
    const s = await publicSite();
    const sites = [
      { url: `${s.root}/mcp`, title: 'Install the wombat', root: s.root },
      {
        url: `${s.origin}/sites/${s.other.project.id}/mcp`,
        title: 'Elsewhere',
        root: `${s.origin}/sites/${s.other.project.id}`,
      },
    ];
    // Both sites are sent id 1 and an id of their own, over and over, all at once.
    const calls = Array.from({ length: 10 }, (_, round) =>
      sites.flatMap((site, i) =>
        [1, 100 * (i + 1) + round].map((id) => ({
          url: site.url,
          headers: {},
          id,
          name: 'search',
          args: { query: 'wombatine' },
          site,
        })),
      ),
    ).flat();
    const answers = await burst(calls);
    expect(answers).toHaveLength(40);
    for (const [i, a] of answers.entries()) {
      const site = calls[i]?.site;
      const hits = (a.result.structuredContent as { hits: Hit[] }).hits;
      expect([a.status, a.id]).toEqual([200, calls[i]?.id]);
      expect(hits.map((h) => h.title)).toEqual([site?.title]);
      expect(hits.every((h) => h.url.startsWith(`${site?.root ?? '-'}/`))).toBe(true);
    }
  });

  it('reads a page as Markdown by path or URL; unlisted ones too, never drafts or hidden versions', async () => {
    const s = await publicSite();
    const client = await mcpClient(`${s.root}/mcp`);
    const page = await ok<{ title: string; url: string; markdown: string }>(client, 'read_page', {
      path: '/v1/guides/install',
    });
    expect(page.title).toBe('Install the wombat');
    expect(page.url).toBe(`${s.root}/v1/guides/install`);
    expect(page.markdown).toContain('Run the quokkafier.');
    const byUrl = await call(client, 'read_page', { path: `${s.root}/latest/guides/install.md#steps` });
    expect(textOf(byUrl)).toContain('# Install the wombat');
    expect(textOf(byUrl)).toContain(`URL: ${s.root}/v1/guides/install`);

    const hidden = await ok<{ markdown: string }>(client, 'read_page', { path: 'v1/guides/hidden' });
    expect(hidden.markdown).toContain('numbat');
    for (const path of [
      '/v1/guides/draft',
      '/v2/guides/future',
      `/sites/${s.other.project.id}/v1/guides/elsewhere`,
      '/v1/guides',
    ]) {
      expect(await toolError(client, 'read_page', { path })).toContain('No page readers can see');
    }
    await client.close();
  });

  it('lists the pages of the navigation with descriptions, by version and section', async () => {
    const s = await publicSite();
    const client = await mcpClient(`${s.root}/mcp`);
    const { pages } = await ok<{ pages: Listed[] }>(client, 'list_pages', {});
    expect(pages.map((p) => p.title)).toEqual(['Install the wombat']);
    expect(pages[0]?.url).toBe(`${s.root}/v1/guides/install`);
    expect(pages[0]?.description).toBe('A wombatine page.');
    const inSection = await ok<{ pages: Listed[] }>(client, 'list_pages', {
      version: 'v1',
      section: 'guides',
    });
    expect(inSection.pages).toEqual(pages);
    expect(await toolError(client, 'list_pages', { version: 'v2' })).toContain("No version 'v2'");
    expect(await toolError(client, 'list_pages', { section: 'nope' })).toContain("No section 'nope'");
    await client.close();
  });

  it('gives an operation of a published reference by METHOD /path, operation id or search hit', async () => {
    const s = await publicSite();
    const client = await mcpClient(`${s.root}/mcp`);
    interface Operation {
      method: string;
      path: string;
      url: string;
      parameters: Array<{ name: string; in: string }>;
      responses: Array<{ status: string; content: Array<{ schema: { type: string } | null }> }>;
    }
    const byPath = await ok<Operation>(client, 'get_operation', {
      reference: s.reference.slug,
      operation: 'get /pets',
    });
    expect(byPath.method).toBe('GET');
    expect(byPath.path).toBe('/pets');
    expect(byPath.parameters.map((p) => p.name)).toContain('kind');
    expect(byPath.responses[0]?.status).toBe('200');
    expect(byPath.responses[0]?.content[0]?.schema?.type).toBe('array of Pet');
    const byId = await ok<Operation>(client, 'get_operation', {
      reference: `${s.root}/v1/ref/${s.reference.slug}`,
      operation: 'listPets',
    });
    expect(byId).toEqual(byPath);
    const byHit = await ok<Operation>(client, 'get_operation', {
      reference: `/v1/ref/${s.reference.slug}`,
      operation: byPath.url,
    });
    expect(byHit).toEqual(byPath);
    expect(
      await toolError(client, 'get_operation', { reference: s.reference.slug, operation: 'PATCH /nowhere' }),
    ).toContain("No operation 'PATCH /nowhere'");
    expect(await toolError(client, 'get_operation', { reference: 'nope', operation: 'GET /pets' })).toContain(
      "No API reference 'nope'",
    );
    await client.close();
  });

  it('answers bad input with a tool error naming the problem, never a 5xx', async () => {
    const s = await publicSite();
    const client = await mcpClient(`${s.root}/mcp`);
    expect(await toolError(client, 'search', {})).toMatch(/query/);
    expect(await toolError(client, 'search', { query: '   ' })).toMatch(/query must not be empty/);
    expect(await toolError(client, 'search', { query: 'a', versoin: 'v1' })).toMatch(/versoin/);
    expect(await toolError(client, 'read_page', { path: 42 })).toMatch(/path/);
    expect(await toolError(client, 'list_pages', { version: '' })).toMatch(/version/);
    expect(await toolError(client, 'get_operation', { reference: 'x' })).toMatch(/operation/);
    expect(await toolError(client, 'read_page', { path: 'http://[bad' })).toContain(
      'No page readers can see',
    );
    expect(await toolError(client, 'delete_everything', {})).toMatch(/not found/);
    await client.close();
    // Not MCP at all: a JSON-RPC error, not a crash.
    const raw = await fetch(`${s.root}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{not json',
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { message: string } }).error.message).toContain('not JSON');
    const get = await fetch(`${s.root}/mcp`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await fetch(`${s.root}/mcp`, { method: 'DELETE' })).status).toBe(405);
  });

  it('limits requests per client address', async () => {
    const s = await publicSite();
    const statuses: number[] = [];
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    for (let i = 0; i < 1_201; i += 1) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/sites/${s.project.id}/mcp`,
        payload: body,
        headers,
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 1_200).every((status) => status === 200)).toBe(true);
    expect(statuses[1_200]).toBe(429);
    const other = await t.app.inject({
      method: 'POST',
      url: `/sites/${s.project.id}/mcp`,
      payload: body,
      headers,
      remoteAddress: '10.9.9.9',
    });
    expect(other.statusCode).toBe(200);
  });
});

describe('the reader MCP server of a private site', () => {
  /** A private site with a page, whose own login (JWT) signs a reader in; its root and a session cookie. */
  async function privateSite() {
    const w = await createWorld(t.deps, { access: 'invite' });
    await sitePage(t.app, w.key, w.documentation.id, {
      title: 'Secret plans',
      slug: 'secret',
      content: 'The quokkaword.',
    });
    const secret = hs256Secret(40);
    await t.deps.readerLogin.setJwtKey(await adminContext(t.deps, { projectId: w.project.id }), secret);
    const seconds = Math.floor(t.clock.now() / 1000);
    const token = await new SignJWT({ email: 'reader@example.com' })
      .setIssuedAt(seconds)
      .setExpirationTime(seconds + 600)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(secret);
    const root = `/sites/${w.project.id}`;
    const login = await visit(t.app, `${root}/login/jwt?token=${encodeURIComponent(token)}`);
    expect(login.statusCode, login.body).toBe(302);
    const origin = await listening(t.app);
    return { ...w, root, url: `${origin}${root}/mcp`, cookie: cookieOf(login) ?? '' };
  }

  it('answers 401 without a session, and a signed-in reader through the cookie or the token', async () => {
    const s = await privateSite();
    await expect(mcpClient(s.url)).rejects.toThrow(/401|private/i);
    await expect(mcpClient(s.url, { authorization: 'Bearer qrt_forged.token' })).rejects.toThrow(
      /401|private/i,
    );

    const byCookie = await mcpClient(s.url, { cookie: s.cookie });
    expect(
      (await ok<{ markdown: string }>(byCookie, 'read_page', { path: '/v1/guides/secret' })).markdown,
    ).toContain('quokkaword');
    await byCookie.close();

    // The connect page: behind the login, with the reader's own token, never cached.
    expect((await visit(t.app, `${s.root}/mcp/connect`)).statusCode).toBe(302);
    const page = await visit(t.app, `${s.root}/mcp/connect`, { cookie: s.cookie });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    const token = /Bearer (qrt_[A-Za-z0-9_.-]+)/.exec(page.body)?.[1] ?? '';
    expect(token).not.toBe('');
    expect(token).not.toContain(s.cookie.split('=')[1] ?? '');

    const byToken = await mcpClient(s.url, { authorization: `Bearer ${token}` });
    expect((await ok<{ hits: Hit[] }>(byToken, 'search', { query: 'quokkaword' })).hits).toHaveLength(1);
    await byToken.close();

    // Signing out ends the token with the session.
    const out = await t.app.inject({
      method: 'POST',
      url: `${s.root}/logout`,
      headers: { cookie: s.cookie },
    });
    expect(out.statusCode).toBe(302);
    await expect(mcpClient(s.url, { authorization: `Bearer ${token}` })).rejects.toThrow(/401|private/i);
  });

  it("does not take another project's token", async () => {
    const s = await privateSite();
    const page = await visit(t.app, `${s.root}/mcp/connect`, { cookie: s.cookie });
    const token = /Bearer (qrt_[A-Za-z0-9_.-]+)/.exec(page.body)?.[1] ?? '';
    const other = await createProject(t.deps, { access: 'invite' });
    const url = s.url.replace(`/sites/${s.project.id}/`, `/sites/${other.id}/`);
    await expect(mcpClient(url, { authorization: `Bearer ${token}` })).rejects.toThrow(/401|private/i);
  });
});
