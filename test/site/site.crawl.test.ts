import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/test-app.ts';
import { buildFixtureProject, siteRoot, type FixtureProject } from './fixture-project.ts';

/** What a crawl saw: every address it asked for, with its answer, and every link it followed. */
interface Crawl {
  /** path (no fragment) → status of the answer, after redirects were followed as links */
  status: Map<string, number>;
  /** path → the ids of its elements, for HTML answers */
  ids: Map<string, Set<string>>;
  /** every link, as `from → to` with its fragment */
  links: Array<{ from: string; to: string }>;
}

const ORIGIN = 'http://localhost';
const CONCURRENCY = 4;
/** The attributes a browser follows or loads from (links, stylesheets, scripts, images, frames). */
const REFERENCES = /\s(?:href|src)="([^"]*)"/g;
const IDS = /\sid="([^"]*)"/g;
const decode = (value: string): string =>
  value.replace(/&(amp|quot|#39|lt|gt);/g, (_m, name: string) =>
    name === 'amp' ? '&' : name === 'quot' ? '"' : name === '#39' ? "'" : name === 'lt' ? '<' : '>',
  );

/**
 * Follows every same-origin `href` and `src` from the site's root, as a crawler would: redirects
 * are followed, HTML answers below the site's root are read for more links, everything else is
 * only fetched. Links that leave the site's root but stay on the host are fetched too (a broken one
 * is a page the site sent readers to).
 */
async function crawl(app: FastifyInstance, root: string): Promise<Crawl> {
  const result: Crawl = { status: new Map(), ids: new Map(), links: [] };
  const queue: string[] = [`${root}/`];
  const queued = new Set(queue);
  const enqueue = (from: string, reference: string) => {
    const url = new URL(decode(reference), `${ORIGIN}${from}`);
    if (url.origin !== ORIGIN) return;
    const path = `${url.pathname}${url.search}`;
    result.links.push({ from, to: `${path}${url.hash}` });
    if (!queued.has(path)) {
      queued.add(path);
      queue.push(path);
    }
  };
  const visit = async (path: string) => {
    const res = await app.inject({ method: 'GET', url: path });
    result.status.set(path, res.statusCode);
    if (res.statusCode >= 300 && res.statusCode < 400) {
      enqueue(path, String(res.headers.location));
      return;
    }
    if (!String(res.headers['content-type']).startsWith('text/html')) return;
    result.ids.set(path, new Set([...res.body.matchAll(IDS)].map((m) => decode(m[1] ?? ''))));
    if (!path.startsWith(`${root}/`)) return;
    for (const match of res.body.matchAll(REFERENCES)) enqueue(path, match[1] ?? '');
  };
  // A few requests at a time, as a crawler would send them (on PostgreSQL their reads overlap).
  while (queue.length > 0) {
    const batch = queue.splice(0, CONCURRENCY);
    await Promise.all(batch.map(visit));
  }
  return result;
}

/**
 * Whether the site serves the API reference yet (`{site}/{version}/ref/{slug}`), asked of a small
 * project of its own that has one. Until it does, the crawled project has no reference, so that the
 * crawl still meets no broken link; from the day it answers 200, the crawl covers references too.
 */
async function servesReferences(t: TestApp): Promise<boolean> {
  const probe = await buildFixtureProject(t.deps, {
    sections: 1,
    pagesPerSection: 4,
    olderSections: 0,
    changelog: false,
    projectName: 'Probe',
  });
  const reference = probe.extra.find((e) => e.kind === 'reference');
  if (!reference) throw new Error('the probe project has no reference');
  const res = await t.app.inject({ method: 'GET', url: `${siteRoot(probe)}${reference.path}` });
  if (res.statusCode !== 200 && res.statusCode !== 404) {
    throw new Error(`the probe's reference answered ${res.statusCode}`);
  }
  return res.statusCode === 200;
}

describe('a crawl of a site of a few hundred pages', () => {
  let t: TestApp;
  let fixture: FixtureProject;
  let seen: Crawl;
  let root: string;
  let references: boolean;

  beforeAll(async () => {
    t = await buildTestApp();
    references = await servesReferences(t);
    fixture = await buildFixtureProject(t.deps, { reference: references });
    root = siteRoot(fixture);
    seen = await crawl(t.app, root);
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  it('finds every listed page of the default version, and every other address the fixture lists', () => {
    const [current] = fixture.versions;
    const listed = current?.pages.filter((p) => p.listed) ?? [];
    expect(listed.length).toBeGreaterThanOrEqual(250);
    const missing = [...listed.map((p) => p.path), ...fixture.extra.map((e) => e.path)]
      .map((path) => `${root}${path}`)
      .filter((path) => seen.status.get(path) !== 200);
    expect(missing).toEqual([]);
  });

  it('reaches the changelog and each of its posts', () => {
    const kinds = fixture.extra.map((e) => e.kind);
    expect(kinds.filter((kind) => kind === 'changelog')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'post').length).toBeGreaterThanOrEqual(2);
    for (const { path } of fixture.extra) expect(seen.status.get(`${root}${path}`), path).toBe(200);
  });

  it('reaches the API reference from the landing page', (ctx) => {
    ctx.skip(!references, `${root}/{version}/ref/{slug} answers 404: the site does not serve references yet`);
    const reference = fixture.extra.find((e) => e.kind === 'reference');
    expect(reference).toBeDefined();
    expect(seen.status.get(`${root}${reference?.path ?? ''}`)).toBe(200);
    expect(seen.links).toContainEqual({ from: `${root}/`, to: `${root}${reference?.path ?? ''}` });
  });

  it('meets no broken internal link, no broken fragment and no 5xx', () => {
    const failed = [...seen.status].filter(([, status]) => status >= 400);
    expect(failed).toEqual([]);
    const withFragment = seen.links.filter(({ to }) => /#./.test(to));
    const brokenFragments = withFragment.filter(({ to }) => {
      const hash = to.indexOf('#');
      const ids = seen.ids.get(to.slice(0, hash));
      return ids === undefined || !ids.has(decodeURIComponent(to.slice(hash + 1)));
    });
    expect(brokenFragments).toEqual([]);
    // The crawl read what it should have: links from contents into other sections, tables of
    // contents, the site's own files.
    expect(withFragment.length).toBeGreaterThan(1_000);
    expect(
      seen.links.some(({ from, to }) => from.includes('/getting-started/') && to.includes('/concepts/')),
    ).toBe(true);
    expect([...seen.status.keys()].filter((path) => path.includes('/_site/')).length).toBeGreaterThanOrEqual(
      2,
    );
  });

  it('never reaches what readers must not find: unlisted pages, drafts, an unpublished section', async () => {
    const unlisted = fixture.versions.flatMap((v) => v.pages.filter((p) => !p.listed));
    const drafts = fixture.versions.flatMap((v) => v.drafts);
    expect(unlisted.length).toBeGreaterThan(0);
    expect(drafts.length).toBeGreaterThan(0);
    const reached = [...seen.status.keys()];
    for (const page of [...unlisted, ...drafts]) expect(reached).not.toContain(`${root}${page.path}`);
    expect(reached.filter((path) => path.includes('/internal/'))).toEqual([]);
    // Unlisted pages still answer at their address; drafts do not.
    for (const page of unlisted) {
      expect((await t.app.inject({ method: 'GET', url: `${root}${page.path}` })).statusCode).toBe(200);
    }
    for (const page of drafts) {
      const res = await t.app.inject({ method: 'GET', url: `${root}${page.path}` });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });
});
