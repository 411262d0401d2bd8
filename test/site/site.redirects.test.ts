import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { upgradeDatabase } from '../../src/upgrade.ts';
import { client, useTestApp } from '../helpers/test-app.ts';
import { quire, useTempFiles } from './site-cli.ts';
import { LATER_MIGRATIONS, undoLaterMigrations } from '../helpers/later-migrations.ts';
import { createDocumentation, createPublicSite, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();
const tempFile = useTempFiles();

/** A public site with a published page `start` in v1/guides; its API client and its root. */
async function siteWithPage() {
  const w = await createPublicSite(t.deps);
  const api = client(t.app, w.key);
  const pageId = await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
  return { ...w, api, pageId, root: `/sites/${w.project.id}` };
}

/** Expects a `301` to `location` (the site's own address). */
async function expectMoved(url: string, location: string, headers: Record<string, string> = {}) {
  const res = await visit(t.app, url, headers);
  expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(301);
  expect(res.headers.location, url).toBe(location);
}

async function expectNotFound(url: string, headers: Record<string, string> = {}) {
  const res = await visit(t.app, url, headers);
  expect(res.statusCode, url).toBe(404);
  expect(res.headers.location, url).toBeUndefined();
}

async function ok(res: { statusCode: number; body: string }) {
  expect(res.statusCode, res.body).toBe(200);
  return Promise.resolve();
}

describe('a page whose address changed answers 301 at every address it had', () => {
  it('after a slug change, for the page and its Markdown twin', async () => {
    const s = await siteWithPage();
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'begin' }));
    await expectMoved(`${s.root}/v1/guides/start`, `${s.root}/v1/guides/begin`);
    await expectMoved(`${s.root}/v1/guides/start.md`, `${s.root}/v1/guides/begin.md`);
    expect((await visit(t.app, `${s.root}/v1/guides/begin`)).statusCode).toBe(200);
    // A title that regenerates the slug moves it too.
    await ok(await s.api.put(`/page/${s.pageId}`, { title: 'First steps' }));
    await expectMoved(`${s.root}/v1/guides/begin`, `${s.root}/v1/guides/first-steps`);
  });

  it('in one hop to where it is now, however often it moved', async () => {
    const s = await siteWithPage();
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'second' }));
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'third' }));
    await expectMoved(`${s.root}/v1/guides/start`, `${s.root}/v1/guides/third`);
    await expectMoved(`${s.root}/v1/guides/second`, `${s.root}/v1/guides/third`);
    // Back to a slug it had: that address is the page again, and the others lead there.
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'start' }));
    expect((await visit(t.app, `${s.root}/v1/guides/start`)).statusCode).toBe(200);
    await expectMoved(`${s.root}/v1/guides/third`, `${s.root}/v1/guides/start`);
  });

  it('after its section’s slug changed, and its version’s, at every combination of old slugs', async () => {
    const s = await siteWithPage();
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'begin' }));
    await ok(await s.api.put(`/documentation/${s.documentation.id}`, { slug: 'manual' }));
    await expectMoved(`${s.root}/v1/guides/begin`, `${s.root}/v1/manual/begin`);
    await expectMoved(`${s.root}/v1/guides/start`, `${s.root}/v1/manual/begin`);
    await expectMoved(`${s.root}/v1/manual/start`, `${s.root}/v1/manual/begin`);
    await expectMoved(`${s.root}/v1/guides`, `${s.root}/v1/manual`);
    await ok(await s.api.put(`/version/${s.version.id}`, { slug: 'one' }));
    await expectMoved(`${s.root}/v1/guides/start`, `${s.root}/one/manual/begin`);
    await expectMoved(`${s.root}/v1/manual/begin.md`, `${s.root}/one/manual/begin.md`);
    await expectMoved(`${s.root}/v1`, `${s.root}/one`);
    expect((await visit(t.app, `${s.root}/one/manual/begin`)).statusCode).toBe(200);
  });

  it('only while readers can see it there, and never over the page that holds the address now', async () => {
    const s = await siteWithPage();
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'begin' }));
    // Another page takes the old slug, unpublished: the address is its, and readers see nothing there.
    const other = (
      await s.api.post(`/documentation/${s.documentation.id}/page`, {
        title: 'New',
        content: 'x',
        slug: 'start',
      })
    ).json<{ id: number }>().id;
    await expectNotFound(`${s.root}/v1/guides/start`);
    await ok(await s.api.put(`/page/${other}/publish`));
    const taken = await visit(t.app, `${s.root}/v1/guides/start`);
    expect(taken.statusCode).toBe(200);
    expect(taken.body).toContain('<h1>New</h1>');
    // The moved page goes: its other former addresses answer 404.
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'later' }));
    expect((await s.api.delete(`/page/${s.pageId}`)).statusCode).toBeLessThan(300);
    await expectNotFound(`${s.root}/v1/guides/begin`);
    // An unpublished section hides its pages at their old addresses too.
    const section = await createDocumentation(t.deps, s.version.id, {
      title: 'Hidden',
      slug: 'hidden',
      published: false,
    });
    const hidden = await sitePage(t.app, s.key, section.id, { title: 'Secret', slug: 'secret' });
    await ok(await s.api.put(`/page/${hidden}`, { slug: 'secret-2' }));
    await expectNotFound(`${s.root}/v1/hidden/secret`);
  });

  it('also for pages renamed before Quire kept former slugs: the migration reads them from the history', async () => {
    const s = await siteWithPage();
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'begin' }));
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'now' }));
    const db = t.deps.database.db;
    await db.schema.dropTable('former_slugs').execute();
    const table =
      t.storage.schema !== undefined
        ? sql.id(t.storage.schema, 'kysely_migration')
        : sql.id('kysely_migration');
    // The migrations after it run again too (0018's and 0020's are made so that they can; the
    // others' work is undone first).
    await undoLaterMigrations(db);
    const again = ['0017-former-slugs', '0018-webhook-stamps', ...LATER_MIGRATIONS];
    await sql`delete from ${table} where name in (${sql.join(again)})`.execute(db);
    expect(await upgradeDatabase(t.deps.database, t.storage.schema)).toEqual(again);
    await expectMoved(`${s.root}/v1/guides/start`, `${s.root}/v1/guides/now`);
    await expectMoved(`${s.root}/v1/guides/begin`, `${s.root}/v1/guides/now`);
  });

  it('on the project’s host, below its base path', async () => {
    const s = await siteWithPage();
    const set = await quire(
      t.deps,
      'project',
      'update',
      String(s.project.id),
      '--host',
      'https://docs.moved.test',
      '--base-path',
      '/help',
    );
    expect(set.code, set.stderr).toBe(0);
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'begin' }));
    await expectMoved('/help/v1/guides/start', '/help/v1/guides/begin', { host: 'docs.moved.test' });
  });
});

describe('the project’s own redirect rules', () => {
  /** Sets the rules file of the site's project. */
  async function setRules(projectId: number, rules: string) {
    const res = await quire(t.deps, 'project', 'update', String(projectId), '--redirects', tempFile(rules));
    expect(res.code, res.stderr).toBe(0);
  }

  it('send an address that names nothing to the first matching rule’s destination, with its groups', async () => {
    const s = await siteWithPage();
    await setRules(
      s.project.id,
      [
        '# from the old site',
        '/docs/(\\w+)\\.html >> /v1/guides/$1',
        '/docs/(.*) >> /v1/guides',
        '/v1/guides/start >> /never',
      ].join('\n'),
    );
    await expectMoved(`${s.root}/docs/start.html`, `${s.root}/v1/guides/start`);
    await expectMoved(`${s.root}/docs/a/b`, `${s.root}/v1/guides`);
    // A readable address is never redirected by a rule, and neither is a moved page's old address.
    expect((await visit(t.app, `${s.root}/v1/guides/start`)).statusCode).toBe(200);
    await ok(await s.api.put(`/page/${s.pageId}`, { slug: 'begin' }));
    await setRules(s.project.id, '/v1/guides/start >> /elsewhere');
    await expectMoved(`${s.root}/v1/guides/start`, `${s.root}/v1/guides/begin`);
    await expectNotFound(`${s.root}/nothing/here`);
  });

  it('apply below the site’s root on its host, and a change of the file shows at the next request', async () => {
    const s = await siteWithPage();
    const id = String(s.project.id);
    await quire(t.deps, 'project', 'update', id, '--host', 'docs.rules.test', '--base-path', '/kb');
    await setRules(s.project.id, '/old/(.*) >> /v1/guides/$1');
    const host = { host: 'docs.rules.test' };
    await expectMoved('/kb/old/start', '/kb/v1/guides/start', host);
    await expectMoved(`${s.root}/old/start`, `${s.root}/v1/guides/start`);
    // Patterns read the path below the base path: the base path itself is no part of it.
    await setRules(s.project.id, '/kb/old/(.*) >> /v1/guides/$1');
    await expectNotFound('/kb/old/start', host);
    await setRules(s.project.id, '/old/(.*) >> /v1/$1');
    await expectMoved('/kb/old/guides/start', '/kb/v1/guides/start', host);
    const cleared = await quire(t.deps, 'project', 'update', id, '--redirects', '');
    expect(cleared.json).toMatchObject({ redirects: null });
    await expectNotFound('/kb/old/guides/start', host);
  });

  it('never send a reader to another site', async () => {
    const s = await siteWithPage();
    const id = String(s.project.id);
    for (const [destination, problem] of [
      ['//evil.com', "it must not start with '//' (that names another host)"],
      ['https://evil.com', "it must be a path of this site, starting with '/'"],
      ['/\\evil.com', 'it must not contain a backslash (browsers read it as /)'],
    ]) {
      const res = await quire(
        t.deps,
        'project',
        'update',
        id,
        '--redirects',
        tempFile(`# rules\n/ok >> /v1\n/x >> ${destination}\n`),
      );
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `quire: redirects line 3: the destination ${destination} is refused: ${problem}\n`,
      );
    }
    // A destination that a group would turn into another host's address answers nothing, at a host's
    // root too, where the site's root adds no path before it.
    await quire(t.deps, 'project', 'update', id, '--host', 'docs.open.test');
    await setRules(s.project.id, '/go(.*) >> /$1');
    const host = { host: 'docs.open.test' };
    await expectNotFound('/go/evil.com', host);
    await expectNotFound(`${s.root}/go/evil.com`);
    await expectMoved('/gov1', '/v1', host);
    // An encoded backslash stays a character of a path of the site.
    await expectMoved('/go%5Cevil.com', '/%5Cevil.com', host);
  });

  it('refuse a file with a bad rule, naming its line, and keep the rules there were', async () => {
    const s = await siteWithPage();
    await setRules(s.project.id, '/a >> /v1');
    const id = String(s.project.id);
    const cases: Array<[string, string]> = [
      ['/a >> /v1\n\n/b /v1\n', "quire: redirects line 3: no '>>' between the pattern and the destination\n"],
      [
        '/(a >> /v1\n',
        'quire: redirects line 1: the pattern /(a is invalid: Invalid regular expression: //(a/: Unterminated group\n',
      ],
      [
        '/(a)\\1 >> /v1\n',
        'quire: redirects line 1: the pattern /(a)\\1 is not supported: \\1 at 5 is not supported (backreferences, word boundaries and code escapes are not)\n',
      ],
      [
        '/(a) >> /v1/$2\n',
        'quire: redirects line 1: the destination names $2, but the pattern has groups $1 to $1\n',
      ],
    ];
    for (const [rules, message] of cases) {
      const res = await quire(t.deps, 'project', 'update', id, '--redirects', tempFile(rules));
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(message);
    }
    await expectMoved(`${s.root}/a`, `${s.root}/v1`);
  });
});
