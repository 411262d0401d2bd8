import { describe, expect, it } from 'vitest';
import { adminContext, createProject } from '../helpers/factories.ts';
import { client, useTestApp } from '../helpers/test-app.ts';
import { createDocumentation, createPublicSite, createVersion, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();

async function host(projectId: number, hostUrl: string | null, basePath: string | null) {
  const ctx = await adminContext(t.deps, { projectId });
  await t.deps.projects.update(ctx, { host: hostUrl, basePath });
}

/** A public project with a page `/v1/guides/start` titled `title`, on `hostUrl` under `basePath`. */
async function hostedSite(title: string, hostUrl: string | null, basePath: string | null) {
  const w = await createPublicSite(t.deps);
  await sitePage(t.app, w.key, w.documentation.id, { title, slug: 'start' });
  await host(w.project.id, hostUrl, basePath);
  return w;
}

describe('where a project site lives (site.md §1)', () => {
  it("serves a project on its host's root, leaving Quire's own paths to Quire", async () => {
    const name = `docs-${Date.now()}.example.com`;
    await hostedSite('Hosted start', `https://${name}`, null);
    const page = await visit(t.app, '/v1/guides/start', { host: name });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('<h1>Hosted start</h1>');
    expect(page.body).toContain(`<link rel="canonical" href="https://${name}/v1/guides/start"/>`);
    // The site owns every other path of its host, /docs included.
    const docs = await visit(t.app, '/docs', { host: name });
    expect(docs.statusCode).toBe(404);
    expect(docs.headers['content-type']).toBe('text/html; charset=utf-8');
    // Quire's own paths stay Quire's.
    const api = await visit(t.app, '/api/v1/version', { host: name });
    expect(api.statusCode).toBe(403);
    expect(api.headers['content-type']).toMatch(/application\/json/);
    expect((await visit(t.app, '/healthz', { host: name })).json()).toEqual({ status: 'ok' });
    // Host names match whatever their case.
    expect((await visit(t.app, '/v1/guides/start', { host: name.toUpperCase() })).statusCode).toBe(200);
  });

  it('picks the longest matching base path among projects sharing a host', async () => {
    const name = `shared-${Date.now()}.example.com`;
    await hostedSite('Outer page', `https://${name}`, '/docs');
    await hostedSite('Inner page', `https://${name}:8443`, '/docs/inner/');
    const port = `${name}:8443`;
    await hostedSite('Root page', `https://${port}`, '/');
    const inner = await visit(t.app, '/docs/inner/v1/guides/start', { host: port });
    expect(inner.body).toContain('<h1>Inner page</h1>');
    expect(inner.body).toContain(`href="/docs/inner/v1/guides/start"`);
    const root = await visit(t.app, '/v1/guides/start', { host: port });
    expect(root.body).toContain('<h1>Root page</h1>');
    // `/docs` without the port is another host: only the outer project is there.
    const outer = await visit(t.app, '/docs/v1/guides/start', { host: name });
    expect(outer.body).toContain('<h1>Outer page</h1>');
    // `/docsx` is not under `/docs`: no project of that host has the root, so Quire answers.
    const beside = await visit(t.app, '/docsx/v1', { host: name });
    expect(beside.statusCode).toBe(404);
    expect(beside.headers['content-type']).toMatch(/application\/json/);
  });

  it('serves every project at /sites/{id} on any host, naming its own host as canonical', async () => {
    const name = `canon-${Date.now()}.example.com`;
    const w = await hostedSite('Previewed', `https://${name}`, '/base');
    const page = await visit(t.app, `/sites/${w.project.id}/v1/guides/start`, {
      host: 'preview.internal:3000',
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<link rel="canonical" href="https://${name}/base/v1/guides/start"/>`);
    expect(page.body).toContain(`href="/sites/${w.project.id}/v1/guides/start"`);
    const unhosted = await createPublicSite(t.deps);
    await sitePage(t.app, unhosted.key, unhosted.documentation.id, { title: 'Plain', slug: 'plain' });
    const plain = await visit(t.app, `/sites/${unhosted.project.id}/v1/guides/plain`, {
      host: 'preview.internal:3000',
    });
    expect(plain.body).toContain(
      `<link rel="canonical" href="http://preview.internal:3000/sites/${unhosted.project.id}/v1/guides/plain"/>`,
    );
  });

  it("moves a project's site at the next request when its hosting changes", async () => {
    const name = `moving-${Date.now()}.example.com`;
    const w = await hostedSite('Mover', `https://${name}`, '/old');
    expect((await visit(t.app, '/old/v1/guides/start', { host: name })).statusCode).toBe(200);
    await host(w.project.id, `https://${name}`, '/new');
    expect((await visit(t.app, '/new/v1/guides/start', { host: name })).statusCode).toBe(200);
    const old = await visit(t.app, '/old/v1/guides/start', { host: name });
    expect(old.headers['content-type']).toMatch(/application\/json/);
  });
});

describe('what readers cannot see is not found at any page address', () => {
  it('answers drafts, hidden sections and versions, deleted pages and other projects with the 404 page', async () => {
    const w = await createPublicSite(t.deps);
    const base = `/sites/${w.project.id}`;
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Visible', slug: 'visible' });
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Draft only', slug: 'draft', publish: false });
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Unlisted', slug: 'unlisted', listed: false });
    const deleted = await sitePage(t.app, w.key, w.documentation.id, { title: 'Deleted', slug: 'deleted' });
    const hiddenSection = await createDocumentation(t.deps, w.version.id, {
      slug: 'hidden',
      published: false,
    });
    await sitePage(t.app, w.key, hiddenSection.id, { title: 'In hidden section', slug: 'inside' });
    const hiddenVersion = await createVersion(t.deps, w.project.id, {
      name: 'v9',
      slug: 'v9',
      published: false,
    });
    const v9Section = await createDocumentation(t.deps, hiddenVersion.id, { slug: 'guides' });
    await sitePage(t.app, w.key, v9Section.id, { title: 'In hidden version', slug: 'inside' });
    const other = await createPublicSite(t.deps);
    await sitePage(t.app, other.key, other.documentation.id, { title: 'Elsewhere', slug: 'elsewhere' });
    const del = await client(t.app, w.key).delete(`/page/${deleted}`);
    expect(del.statusCode, del.body).toBe(200);

    for (const path of [
      '/v1/guides/draft',
      '/v1/guides/draft.md',
      '/v1/guides/deleted',
      '/v1/guides/deleted.md',
      '/v1/hidden/inside',
      '/v1/hidden',
      '/v9/guides/inside',
      '/v9/guides',
      '/v9',
      '/v1/guides/elsewhere',
    ]) {
      const res = await visit(t.app, `${base}${path}`);
      expect(res.statusCode, path).toBe(404);
      expect(res.headers['content-type'], path).toBe('text/html; charset=utf-8');
      expect(res.body, path).toContain('<h1>Page not found</h1>');
    }
    const unlisted = await visit(t.app, `${base}/v1/guides/unlisted`);
    expect(unlisted.statusCode).toBe(200);
    const visible = await visit(t.app, `${base}/v1/guides/visible`);
    for (const absent of ['Draft only', 'Unlisted', 'Deleted', 'In hidden', 'Elsewhere', 'v9']) {
      expect(
        visible.body,
        visible.body.slice(
          Math.max(0, visible.body.indexOf(absent) - 300),
          visible.body.indexOf(absent) + 50,
        ),
      ).not.toContain(absent);
    }
    expect((await visit(t.app, `${base}/v1/guides/visible.md`)).headers['content-type']).toBe(
      'text/markdown; charset=utf-8',
    );
  });

  it('shows nothing of a project whose readers are invited but its login, and keeps crawlers out', async () => {
    const project = await createProject(t.deps, { access: 'invite' });
    const res = await visit(t.app, `/sites/${project.id}/`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/sites/${project.id}/login`);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const robots = await visit(t.app, `/sites/${project.id}/robots.txt`);
    expect(robots.body).toBe('User-agent: *\nDisallow: /\n');
  });
});
