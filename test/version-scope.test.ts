import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../src/modules/webhooks/webhooks.schemas.ts';
import { openapiJson, upload } from './helpers/references.ts';
import {
  createScopedProject,
  leaks,
  type ScopedProject,
  type VersionThings,
} from './helpers/scoped-project.ts';
import { client, dialectName, useTestApp, type Response } from './helpers/test-app.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { readZip } from './helpers/zip.ts';

// A key limited to v1 walks every path data leaves Quire by, and finds nothing of v2 and v3
// (decision 0019).
const t = useTestApp({
  env: {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {}),
  },
});
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const ALL_SCOPES = 'scopes=content,users,hosting,security,plan,other';

/** Requests of a route: those about v1 (which must answer 200) and those about v2/v3 (403/404). */
interface Walk {
  visible: string[];
  hidden?: string[];
}

/** Every GET route of the app, as a pattern (`/api/v1/page/:id`), read from the router itself. */
function getRoutes(tree: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.+?) \(([^)]*)\)$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    // `/:id|:versionId`: routes naming the same parameter differently share a node.
    const segment = (match[2] ?? '').replace(/\|:\w+/g, '');
    stack.length = depth;
    stack.push(segment);
    if ((match[3] ?? '').split(', ').includes('GET')) routes.push(stack.join(''));
  }
  return routes;
}

/** What each GET route is asked for; a route missing from both this and IRRELEVANT fails the walk. */
function walks(p: ScopedProject, webhooks: { scoped: number; unscoped: number }): Record<string, Walk> {
  const { v1, hidden } = p;
  const each = (f: (v: VersionThings) => string[]) => hidden.flatMap(f);
  const formats = ['darkdown', 'markdown', 'html', 'text'];
  const page = (v: VersionThings) =>
    [v.pageId, v.childId].flatMap((id) => formats.map((f) => `/page/${id}?format=${f}`));
  const bySlug = (v: VersionThings) => [
    `/page?version_slug=${v.slug}&documentation_slug=${v.sectionSlug}&page_slug=${v.pageSlug}`,
    `/page?version_id=${v.id}&documentation_id=${v.sectionId}&page_slug=${v.pageSlug}`,
  ];
  const definition = (v: VersionThings) =>
    ['draft=false&format=auto', 'draft=true&format=yaml', 'draft=true&format=json'].map(
      (q) => `/reference/${v.referenceId}/definition?${q}`,
    );
  const ofVersion = (suffix: string) => (v: VersionThings) => [`/version/${v.id}/${suffix}`];
  return {
    '/api/v1/version': { visible: ['/version'] },
    '/api/v1/version/:id/report': { visible: ofVersion('report')(v1), hidden: each(ofVersion('report')) },
    '/api/v1/version/:id/documentation': {
      visible: ofVersion('documentation')(v1),
      hidden: each(ofVersion('documentation')),
    },
    '/api/v1/version/:id/broken-links': {
      visible: ofVersion('broken-links')(v1),
      hidden: each(ofVersion('broken-links')),
    },
    '/api/v1/reference/:id/definition': { visible: definition(v1), hidden: each(definition) },
    '/api/v1/reference/:id/changes': {
      visible: [`/reference/${v1.referenceId}/changes?from=published&to=published`],
      hidden: each((v) => [`/reference/${v.referenceId}/changes?from=published&to=published`]),
    },
    '/api/v1/reference/:id/history': {
      visible: [`/reference/${v1.referenceId}/history`],
      hidden: each((v) => [`/reference/${v.referenceId}/history`]),
    },
    '/api/v1/structure': {
      visible: [`/structure?version_slug=${v1.slug}`],
      hidden: each((v) => [`/structure?version_slug=${v.slug}`]),
    },
    '/api/v1/reader-access': { visible: ['/reader-access'] },
    '/api/v1/page': {
      visible: [
        ...bySlug(v1),
        `/page?version_id=latest&documentation_slug=${v1.sectionSlug}&page_slug=${v1.pageSlug}`,
      ],
      hidden: each(bySlug),
    },
    '/api/v1/page/:id': { visible: page(v1), hidden: each(page) },
    '/api/v1/page/:id/history': {
      visible: [`/page/${v1.pageId}/history`],
      hidden: each((v) => [`/page/${v.pageId}/history`, `/page/${v.childId}/history`]),
    },
    '/api/v1/page/:id/history/:revision': {
      visible: [`/page/${v1.pageId}/history/1`, `/page/${v1.pageId}/history/2?format=html`],
      hidden: each((v) => [`/page/${v.pageId}/history/1`, `/page/${v.pageId}/history/3?format=text`]),
    },
    '/api/v1/users': { visible: ['/users'] },
    '/api/v1/all': {
      visible: ['/all', '/all?published=true', `/all?versionId=${v1.id}`, '/all?versionId=latest'],
      hidden: each((v) => [`/all?versionId=${v.id}`]),
    },
    '/api/v1/audit': { visible: [`/audit?${ALL_SCOPES}&hits=100`, '/audit?hits=100'] },
    '/api/v1/search': {
      visible: [
        ...['markerv1', 'markerv2', 'markerv3', 'Page', 'Heading', 'pets', '"Published body"'].map(
          (q) => `/search?query=${encodeURIComponent(q)}&hits=100`,
        ),
        '/search?query=Page&version_slug=latest',
        ...p.hidden.map((v) => `/search?query=Page&documentation_slug=${v.sectionSlug}`),
      ],
      hidden: each((v) => [`/search?query=Page&version_slug=${v.slug}`]),
    },
    '/api/v1/export': {
      visible: ['/export', '/export?format=markdown', `/export?version_slug=${v1.slug}`],
      hidden: each((v) => [`/export?version_slug=${v.slug}`]),
    },
    '/api/v1/changelog/:id/post': { visible: [`/changelog/${p.changelogId}/post`] },
    '/api/v1/feedback': {
      visible: ['/feedback', `/feedback?page_id=${v1.pageId}&hits=100`],
      hidden: each((v) => [`/feedback?page_id=${v.pageId}`]),
    },
    '/api/v1/webhooks': { visible: ['/webhooks'] },
    '/api/v1/webhooks/:id/deliveries': {
      visible: [`/webhooks/${webhooks.scoped}/deliveries`],
      // A webhook of an unlimited key tells of changes in every version: a limited key cannot see it.
      hidden: [`/webhooks/${webhooks.unscoped}/deliveries`],
    },
    '/api/v1/openapi.json': { visible: ['/api/v1/openapi.json'] },
    '/metrics': { visible: ['/metrics'] },
    '/healthz': { visible: ['/healthz'] },
    '/readyz': { visible: ['/readyz'] },
  };
}

/** Walked paths are relative to /api/v1, except those outside it. */
const fullUrl = (url: string) =>
  url.startsWith('/api/') || ['/metrics', '/healthz', '/readyz'].includes(url) ? url : `/api/v1${url}`;

/** GET routes with nothing of any project to show, and why. */
const IRRELEVANT: Record<string, string> = {
  '/docs': 'the browsable API reference: a static page, the same for every project',
  '/sites/:projectId': 'the reader site: what readers of the project see, which no key scopes',
  '/sites/:projectId*': 'the reader site: what readers of the project see, which no key scopes',
  '/docs/static/index.html': 'a static file of the API reference',
  '/docs/static/swagger-initializer.js': 'a static file of the API reference',
  '/docs*': 'static files of the API reference',
  '/docs/json': 'the OpenAPI document, walked at /api/v1/openapi.json',
  '/docs/yaml': 'the OpenAPI document, walked at /api/v1/openapi.json',
  '/api/v1/mcp': 'the writer MCP server: GET is 405; its tools, POSTs, are scoped in mcp.writer.test.ts',
};

/** The text a scan reads of an answer: the body, or for an archive every file's name and content. */
async function readable(res: Response): Promise<string> {
  if (!String(res.headers['content-type'] ?? '').startsWith('application/zip')) return res.body;
  const files = await readZip(res.rawPayload);
  expect(files.size).toBeGreaterThan(0);
  return [...files].map(([name, data]) => `${name}\n${data.toString('utf8')}`).join('\n');
}

/**
 * Readers' feedback on each version's page, written as the site writes it (the project is private,
 * so its site takes none until reader sessions exist): the walk must find v1's alone.
 */
async function feedbackOnEveryVersion(p: ScopedProject): Promise<void> {
  await t.deps.database.db
    .insertInto('feedback')
    .values(
      [p.v1, ...p.hidden].map((v) => ({
        project_id: p.project.id,
        version_id: v.id,
        page_id: v.pageId,
        helpful: 1,
        message: `Feedback ${v.marker}`,
        created: '2026-11-21T10:15:00.000Z',
      })),
    )
    .execute();
}

async function registerWebhook(key: string) {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await client(t.app, key).post('/webhooks', {
    url: receiver.url(),
    events: WEBHOOK_EVENT_TYPES,
  });
  expect(res.statusCode, res.body).toBe(201);
  return { receiver, id: res.json<{ id: number }>().id };
}

describe('a key limited to v1', () => {
  it('finds nothing of v2 and v3 on any GET route', async () => {
    const p = await createScopedProject(t);
    await feedbackOnEveryVersion(p);
    const scopedHook = await registerWebhook(p.scoped);
    const unscopedHook = await registerWebhook(p.admin);
    const api = client(t.app, p.scoped);
    const headers = { 'x-api-key': p.scoped };
    const plan = walks(p, { scoped: scopedHook.id, unscoped: unscopedHook.id });
    await t.app.ready();
    const routes = getRoutes(t.app.printRoutes({ method: 'GET', commonPrefix: false }));
    expect(routes.length).toBeGreaterThan(20);
    const unwalked = routes.filter((route) => plan[route] === undefined && IRRELEVANT[route] === undefined);
    expect(unwalked, 'GET routes neither walked nor listed as irrelevant').toEqual([]);
    const found: string[] = [];
    for (const route of routes) {
      const walk = plan[route];
      if (walk === undefined) continue;
      for (const [urls, statuses] of [
        [walk.visible, [200]],
        [walk.hidden ?? [], [403, 404]],
      ] as const) {
        for (const url of urls) {
          const res = (await t.app.inject({ method: 'GET', url: fullUrl(url), headers })) as Response;
          expect(statuses, `${url}: ${res.body.slice(0, 300)}`).toContain(res.statusCode);
          for (const leak of leaks(await readable(res), p.hidden, url)) found.push(`${url}: ${leak}`);
        }
      }
    }
    expect(found).toEqual([]);
    // Searches for a hidden version's marker echo it in `query`: they must find nothing.
    for (const marker of ['markerv2', 'markerv3']) {
      const res = await api.get(`/search?query=${marker}&hits=100`);
      expect(res.json<{ nbHits: number }>().nbHits, res.body).toBe(0);
    }
    // The walk reads v1's things: it is not empty-handed because the key sees nothing at all.
    const searched = await api.get('/search?query=markerv1&hits=100');
    expect(searched.json<{ nbHits: number }>().nbHits).toBeGreaterThan(0);
    const audit = await api.get(`/audit?${ALL_SCOPES}&hits=100`);
    expect(audit.body).toContain('Page markerv1');
    expect(audit.body).toContain('Reader access granted');
    const exported = await readable(await api.get('/export'));
    expect(exported).toContain('Pending draft markerv1');
    expect((await api.get('/feedback')).body).toContain('Feedback markerv1');
  });

  it('pages through the audit log in full pages of what it may see', async () => {
    const p = await createScopedProject(t);
    const api = client(t.app, p.scoped);
    const whole = (await api.get(`/audit?${ALL_SCOPES}&hits=100`)).json<{
      data: Array<{ id: number }>;
      total: number;
    }>();
    expect(whole.data.length).toBe(whole.total);
    const everything = (await client(t.app, p.admin).get(`/audit?${ALL_SCOPES}&hits=100`)).json<{
      total: number;
    }>();
    expect(everything.total).toBeGreaterThan(whole.total);
    const ids: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const res = await api.get(`/audit?${ALL_SCOPES}&hits=3${query}`);
      const body = res.json<{
        data: Array<{ id: number }>;
        count: number;
        total: number;
        cursor: string | null;
      }>();
      expect(body.total).toBe(whole.total);
      if (body.cursor !== null) expect(body.count).toBe(3);
      ids.push(...body.data.map((entry) => entry.id));
      cursor = body.cursor;
    } while (cursor !== null);
    expect(ids).toEqual(whole.data.map((entry) => entry.id));
  });

  it('has its webhook sent the changes of v1 and of the project, none of v2 and v3', async () => {
    const p = await createScopedProject(t);
    const scopedHook = await registerWebhook(p.scoped);
    const unscopedHook = await registerWebhook(p.admin);
    const admin = client(t.app, p.admin);
    const changes = async (v: VersionThings) => {
      const made = await admin.post(`/documentation/${v.sectionId}/page`, {
        title: `New page ${v.marker}`,
        content: `New draft ${v.marker}.`,
      });
      expect(made.statusCode, made.body).toBe(200);
      const id = made.json<{ id: number }>().id;
      expect((await admin.put(`/page/${id}`, { content: `Newer draft ${v.marker}.` })).statusCode).toBe(200);
      expect((await admin.put(`/page/${id}/publish`)).statusCode).toBe(200);
      expect((await admin.put(`/version/${v.id}`, { name: `Renamed ${v.marker}` })).statusCode).toBe(200);
      const uploaded = await upload(t.app, p.admin, v.id, openapiJson(`API ${v.marker}`), { publish: false });
      expect(uploaded.statusCode).toBe(201);
    };
    for (const v of [p.v1, ...p.hidden]) await changes(v);
    expect((await admin.post('/reader-access', { email: 'late@example.com' })).statusCode).toBe(200);
    // Five changes in each of three versions and a grant: the unlimited webhook gets all sixteen,
    // the limited one v1's five and the grant.
    await t.deps.webhookDispatcher.drain();
    expect(unscopedHook.receiver.received).toHaveLength(16);
    const received = scopedHook.receiver.received;
    const deliveries = await client(t.app, p.scoped).get(`/webhooks/${scopedHook.id}/deliveries`);
    expect(deliveries.json<{ items: unknown[] }>().items).toHaveLength(6);
    expect(received).toHaveLength(6);
    const bodies = received.map((r) => r.body).join('\n');
    expect(bodies).toContain('Newer draft markerv1');
    expect(bodies).toContain('late@example.com');
    expect(leaks(bodies, p.hidden)).toEqual([]);
    expect(leaks(unscopedHook.receiver.received.map((r) => r.body).join('\n'), p.hidden)).not.toEqual([]);
  });
});
