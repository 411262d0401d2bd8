import { describe, expect, it } from 'vitest';
import { adminContext, createWorld } from '../helpers/factories.ts';
import { client, useTestApp } from '../helpers/test-app.ts';
import { sendFeedback, storedFeedback } from './feedback-helpers.ts';
import { createPublicSite, sitePage, visit } from './site-helpers.ts';

const t = useTestApp({ env: { RATE_LIMIT_SCALE: '0.25' } });

/** A public site with the listed page `/v1/guides/start`. */
async function siteWithPage() {
  const w = await createPublicSite(t.deps);
  const pageId = await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
  return { ...w, pageId, root: `/sites/${w.project.id}` };
}

describe('reader feedback on the site (site.md §7)', () => {
  it('ends each page with an accessible form, the same bytes for every reader', async () => {
    const s = await siteWithPage();
    const page = await visit(t.app, `${s.root}/v1/guides/start`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(
      `<form class="feedback-form" method="post" action="${s.root}/_site/feedback">`,
    );
    expect(page.body).toContain('<input type="hidden" name="page" value="/v1/guides/start"/>');
    expect(page.body).toContain('<legend>Was this page helpful?</legend>');
    expect(page.body).toContain('<label for="feedback-message">');
    expect(page.body).toContain('maxlength="2000"');
    expect(page.body).toMatch(/<button type="submit" name="helpful" value="yes">Yes<\/button>/);
    expect(page.body).toMatch(/<button type="submit" name="helpful" value="no">No<\/button>/);
    expect(page.headers['set-cookie']).toBeUndefined();
    // Sending feedback changes nothing of the page: the same answer, the same tag.
    const sent = await sendFeedback(t.app, s.root, { page: '/v1/guides/start', helpful: 'yes' });
    expect(sent.statusCode, sent.body).toBe(303);
    const again = await visit(t.app, `${s.root}/v1/guides/start`, {
      'if-none-match': String(page.headers.etag),
    });
    expect(again.statusCode).toBe(304);
    expect((await visit(t.app, `${s.root}/v1/guides/start`)).body).toBe(page.body);
  });

  it('stores yes or no and the message, answers 303 back to the page, and sets no cookie', async () => {
    const s = await siteWithPage();
    const message = 'Clear, but the second step\r\nneeds an example. <b>é</b>';
    const yes = await sendFeedback(
      t.app,
      s.root,
      { page: '/v1/guides/start', helpful: 'yes', message: `  ${message}  ` },
      { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' },
    );
    expect(yes.statusCode, yes.body).toBe(303);
    expect(yes.headers.location).toBe(`${s.root}/v1/guides/start#feedback-thanks`);
    expect(yes.headers['set-cookie']).toBeUndefined();
    expect(yes.headers['cache-control']).toBe('no-store');
    t.clock.advance(1000);
    const no = await sendFeedback(t.app, s.root, { page: '/v1/guides/start', helpful: 'no', message: '   ' });
    expect(no.statusCode, no.body).toBe(303);
    expect(no.headers['set-cookie']).toBeUndefined();
    const rows = await storedFeedback(t.deps, s.project.id);
    expect(rows.map((r) => [r.page_id, r.version_id, Number(r.helpful), r.message])).toEqual([
      [s.pageId, s.version.id, 1, 'Clear, but the second step\nneeds an example. <b>é</b>'],
      [s.pageId, s.version.id, 0, null],
    ]);
    expect(rows[1]?.created).toBe('2026-11-21T10:15:01.000Z');
    // Nothing of the reader is kept: the table has no column for it.
    expect(Object.keys(rows[0] ?? {}).sort()).toEqual(
      ['created', 'helpful', 'id', 'message', 'page_id', 'project_id', 'version_id'].sort(),
    );
    // Feedback never appears on the site.
    const page = await visit(t.app, `${s.root}/v1/guides/start`);
    expect(page.body).not.toContain('second step');
  });

  it('takes feedback on the project host, below its base path', async () => {
    const s = await siteWithPage();
    const name = `feedback-${Date.now()}.example.com`;
    await t.deps.projects.update(await adminContext(t.deps, { projectId: s.project.id }), {
      host: `https://${name}`,
      basePath: '/docs',
    });
    const page = await visit(t.app, '/docs/v1/guides/start', { host: name });
    expect(page.body).toContain('action="/docs/_site/feedback"');
    const sent = await sendFeedback(
      t.app,
      '/docs',
      { page: '/v1/guides/start', helpful: 'no' },
      { host: name, origin: `https://${name}` },
    );
    expect(sent.statusCode, sent.body).toBe(303);
    expect(sent.headers.location).toBe('/docs/v1/guides/start#feedback-thanks');
    expect(await storedFeedback(t.deps, s.project.id)).toHaveLength(1);
    // Another base path of the host is no site's: Quire's own answer, nothing stored.
    const elsewhere = await sendFeedback(
      t.app,
      '/other',
      { page: '/v1/guides/start', helpful: 'no' },
      { host: name },
    );
    expect(elsewhere.statusCode).toBe(404);
    expect(await storedFeedback(t.deps, s.project.id)).toHaveLength(1);
  });

  it('refuses bad values with the site’s own page and a 4xx, never JSON, storing nothing', async () => {
    const s = await siteWithPage();
    const long = 'é'.repeat(2001);
    const cases: Array<[Record<string, string> | string, number, string]> = [
      [{ page: '/v1/guides/start' }, 400, 'Answer'],
      [{ page: '/v1/guides/start', helpful: 'maybe' }, 400, 'Answer'],
      ['page=%2Fv1%2Fguides%2Fstart&helpful=yes&helpful=no', 400, 'Answer'],
      [{ helpful: 'yes' }, 400, 'does not name the page'],
      [{ page: 'v1/guides/start', helpful: 'yes' }, 400, 'does not name the page'],
      [{ page: `/${'x'.repeat(500)}`, helpful: 'yes' }, 400, 'does not name the page'],
      [{ page: '/v1/guides/start', helpful: 'yes', message: long }, 400, '2,001 characters'],
      ['page=%2Fv1%2Fguides%2Fstart&helpful=yes&message=a&message=b', 400, 'more than one message'],
      [{ page: '/v1/guides/nosuch', helpful: 'yes' }, 404, 'no page'],
      [{ page: '/v9/guides/start', helpful: 'yes' }, 404, 'no page'],
      [{ page: '/v1/guides', helpful: 'yes' }, 404, 'no page'],
      [{ page: '/v1/guides/start.md', helpful: 'yes' }, 404, 'no page'],
      ['page=%2Fv1%2F%FF&helpful=yes', 404, 'no page'],
    ];
    // Each from an address of its own, under the rate limit of this file.
    for (const [i, [fields, status, text]] of cases.entries()) {
      const res = await sendFeedback(t.app, s.root, fields, {}, `198.51.100.${i + 1}`);
      expect(res.statusCode, JSON.stringify(fields)).toBe(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<h1>Your feedback was not sent</h1>');
      expect(res.body).toContain(text);
    }
    // A message of exactly 2,000 characters is taken; one too long links back to its page.
    const tooLong = await sendFeedback(t.app, s.root, {
      page: '/v1/guides/start',
      helpful: 'yes',
      message: long,
    });
    expect(tooLong.body).toContain(`href="${s.root}/v1/guides/start"`);
    expect(await storedFeedback(t.deps, s.project.id)).toEqual([]);
    const full = await sendFeedback(t.app, s.root, {
      page: '/v1/guides/start',
      helpful: 'yes',
      message: 'é'.repeat(2000),
    });
    expect(full.statusCode).toBe(303);
    // Not a form: 415; too large: 413 — both the site's page.
    const json = await t.app.inject({
      method: 'POST',
      url: `${s.root}/_site/feedback`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ page: '/v1/guides/start', helpful: 'yes' }),
    });
    expect(json.statusCode).toBe(415);
    expect(json.headers['content-type']).toBe('text/html; charset=utf-8');
    const huge = await sendFeedback(
      t.app,
      s.root,
      `page=%2Fv1%2Fguides%2Fstart&helpful=yes&message=${'a'.repeat(40_000)}`,
    );
    expect(huge.statusCode).toBe(413);
    expect(huge.body).toContain('<h1>Your feedback was not sent</h1>');
    // Unknown projects and another form's name are no site's form.
    const noProject = await sendFeedback(t.app, '/sites/999999', {
      page: '/v1/guides/start',
      helpful: 'yes',
    });
    expect(noProject.statusCode).toBe(404);
    expect(noProject.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(await storedFeedback(t.deps, s.project.id)).toHaveLength(1);
  });

  it('takes feedback on every page readers can read, unlisted ones too, and on no other', async () => {
    const s = await siteWithPage();
    const api = client(t.app, s.key);
    await sitePage(t.app, s.key, s.documentation.id, {
      title: 'Hidden',
      slug: 'hidden',
      listed: false,
    });
    await sitePage(t.app, s.key, s.documentation.id, {
      title: 'Draft',
      slug: 'draft',
      publish: false,
    });
    const deleted = await sitePage(t.app, s.key, s.documentation.id, { title: 'Gone', slug: 'gone' });
    expect((await api.delete(`/page/${deleted}`)).statusCode).toBe(200);
    // An unlisted page is readable at its address, and ends with the form as every page does.
    const hiddenPage = await visit(t.app, `${s.root}/v1/guides/hidden`);
    expect(hiddenPage.statusCode).toBe(200);
    expect(hiddenPage.body).toContain('feedback-form');
    const unlisted = await sendFeedback(t.app, s.root, { page: '/v1/guides/hidden', helpful: 'yes' });
    expect(unlisted.statusCode, unlisted.body).toBe(303);
    expect(unlisted.headers.location).toBe(`${s.root}/v1/guides/hidden#feedback-thanks`);
    expect(await storedFeedback(t.deps, s.project.id)).toHaveLength(1);
    for (const slug of ['draft', 'gone']) {
      const res = await sendFeedback(t.app, s.root, { page: `/v1/guides/${slug}`, helpful: 'yes' });
      expect(res.statusCode, slug).toBe(404);
      expect(res.body).toContain('<h1>Your feedback was not sent</h1>');
    }
    // Another project's page, named below this site: not found.
    const other = await createPublicSite(t.deps);
    const res = await sendFeedback(t.app, `/sites/${other.project.id}`, {
      page: '/v1/guides/start',
      helpful: 'yes',
    });
    expect(res.statusCode).toBe(404);
    // An unpublished section or version takes none either.
    await api.put(`/documentation/${s.documentation.id}`, { published: false });
    expect((await sendFeedback(t.app, s.root, { page: '/v1/guides/start', helpful: 'yes' })).statusCode).toBe(
      404,
    );
    expect(await storedFeedback(t.deps, s.project.id)).toHaveLength(1);
  });

  it('refuses forms sent from another site', async () => {
    const s = await siteWithPage();
    const fields = { page: '/v1/guides/start', helpful: 'yes' };
    for (const headers of [
      { origin: 'https://evil.example' } as Record<string, string>,
      { origin: 'null' },
      { referer: 'https://evil.example/page' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const res = await sendFeedback(t.app, s.root, fields, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.body).toContain('from another site');
    }
    expect(await storedFeedback(t.deps, s.project.id)).toEqual([]);
    // Its own origin, a referer of its own, or neither (an old browser): taken.
    for (const headers of [
      { origin: 'http://localhost:80' } as Record<string, string>,
      { referer: `http://localhost:80${s.root}/v1/guides/start` },
      {},
    ]) {
      const res = await sendFeedback(t.app, s.root, fields, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(303);
    }
  });

  it('limits feedback per client address with the site’s page and a 429', async () => {
    const s = await siteWithPage();
    const fields = { page: '/v1/guides/start', helpful: 'yes' };
    // 20 an hour, scaled by 0.25 in this file: 5.
    for (let i = 0; i < 5; i++) {
      expect((await sendFeedback(t.app, s.root, fields)).statusCode).toBe(303);
    }
    const refused = await sendFeedback(t.app, s.root, fields);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(3600);
    expect(refused.body).toContain('Too much feedback from this address');
    expect(refused.headers['set-cookie']).toBeUndefined();
    // Another client address has its own count.
    const other = await sendFeedback(t.app, s.root, fields, {}, '192.0.2.7');
    expect(other.statusCode).toBe(303);
    expect(await storedFeedback(t.deps, s.project.id)).toHaveLength(6);
  });

  it('takes nothing on a private project from a reader without a session', async () => {
    const w = await createWorld(t.deps, { access: 'invite' });
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
    const res = await sendFeedback(t.app, `/sites/${w.project.id}`, {
      page: '/v1/guides/start',
      helpful: 'yes',
    });
    expect(res.statusCode).toBe(404);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await storedFeedback(t.deps, w.project.id)).toEqual([]);
  });
});
