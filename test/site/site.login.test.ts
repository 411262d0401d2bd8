import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditEntries } from '../helpers/factories.ts';
import fs from 'node:fs';
import { buildTestApp, dialectName, type TestApp } from '../helpers/test-app.ts';
import { SmtpReceiver } from '../helpers/smtp-receiver.ts';
import { sendFeedback, storedFeedback } from './feedback-helpers.ts';
import { visit } from './site-helpers.ts';
import {
  askForLink,
  cookieOf,
  grant,
  mailedLink,
  openLink,
  privateSite,
  revoke,
  signIn,
} from './login-helpers.ts';

const smtp = new SmtpReceiver();
/** The same on every instance, as on PostgreSQL it must be. */
const SECRET = Buffer.alloc(32, 7).toString('base64');
let t: TestApp;

beforeAll(async () => {
  await smtp.start();
});
afterAll(async () => {
  await smtp.stop();
});
beforeEach(async () => {
  t = await buildTestApp({
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Docs <docs@example.com>', SITE_SESSION_SECRET: SECRET },
  });
});
afterEach(async () => {
  await t.close();
});

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;

describe('the login wall of a private site (site.md §6)', () => {
  it('sends every address without a session to the login page, which is noindex', async () => {
    const w = await privateSite(t.deps, t.app);
    for (const path of [
      '/',
      '/v1/guides/secret',
      '/v1/guides/secret.md',
      '/llms.txt',
      '/sitemap.xml',
      '/search?q=quokkaword',
      '/search/results.json?q=quokkaword',
      '/v1/ref/x',
      '/changelog/notes/feed.xml',
    ]) {
      const res = await visit(t.app, `${w.root}${path}`);
      expect(res.statusCode, path).toBe(302);
      const next = path === '/' ? '' : `?next=${encodeURIComponent(path)}`;
      expect(res.headers.location, path).toBe(`${w.root}/login${next}`);
      expect(res.body, path).not.toContain('The quokkaword');
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
    const login = await visit(t.app, `${w.root}/login?next=%2Fv1%2Fguides%2Fsecret`);
    expect(login.statusCode).toBe(200);
    expect(login.body).toContain('<meta name="robots" content="noindex"/>');
    expect(login.body).toContain('<input type="hidden" name="next" value="/v1/guides/secret"/>');
    expect(login.body).not.toContain('Sign out');
    // Search is behind the wall too: no search box that would only lead back here.
    expect(login.body).not.toContain('role="search"');
    const robots = await visit(t.app, `${w.root}/robots.txt`);
    expect(robots.statusCode).toBe(200);
    expect(robots.body).toBe('User-agent: *\nDisallow: /\n');
  });

  it('mails an invitation on a grant, whose link works once and leads to next', async () => {
    const w = await privateSite(t.deps, t.app);
    const email = unique('invited');
    await grant(t.app, w.key, email);
    const link = await mailedLink(t.deps, smtp, email);
    const mail = smtp.to(email)[0]!;
    expect(mail.raw).toMatch(/Content-Type: text\/plain/);
    expect(mail.raw).toMatch(/Content-Type: text\/html/);
    expect(mail.text).toContain('invited to read the');
    expect(mail.text).toContain(w.project.name);
    expect(link.pathname).toBe(`${w.root}/login/verify`);
    const opened = await openLink(t.app, link);
    expect(opened.statusCode).toBe(302);
    expect(opened.headers.location).toBe(`${w.root}/`);
    const setCookie = String(opened.headers['set-cookie']);
    expect(setCookie).toMatch(/^quire_reader=[^;]+; Path=\/sites\/\d+; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const page = await visit(t.app, `${w.root}/v1/guides/secret`, { cookie: cookieOf(opened)! });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('quokkaword');
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.body).toContain('Sign out');
    // A second use of the same link fails: the login page with an error, no session.
    const again = await openLink(t.app, link);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('does not work');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('mails a link asked for at the login page; the answer is the same for an unknown address, which gets no mail', async () => {
    const w = await privateSite(t.deps, t.app);
    const known = unique('known');
    const unknown = unique('unknown');
    await grant(t.app, w.key, known);
    await t.deps.mailDispatcher.drain();
    const before = smtp.mails.length;
    const a = await askForLink(t.app, w.root, known, '10.0.0.2', '/v1/guides/secret');
    const b = await askForLink(t.app, w.root, unknown, '10.0.0.3', '/v1/guides/secret');
    expect(a.statusCode).toBe(200);
    expect(b.statusCode).toBe(200);
    expect(a.body).toBe(b.body.replace(unknown, known));
    expect(a.body).toContain('If this address has access');
    await t.deps.mailDispatcher.drain();
    expect(smtp.mails.length).toBe(before + 1);
    expect(smtp.to(unknown)).toEqual([]);
    const link = await mailedLink(t.deps, smtp, known);
    expect(smtp.to(known)[1]!.text).toContain('sign-in link');
    const opened = await openLink(t.app, link);
    expect(opened.headers.location).toBe(`${w.root}/v1/guides/secret`);
    // Stored only as a hash: the token of the link is nowhere in the database.
    const token = link.searchParams.get('token')!;
    const rows = await t.deps.database.db.selectFrom('reader_login_tokens').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    const outbox = await t.deps.database.db.selectFrom('mail_outbox').selectAll().execute();
    expect(JSON.stringify(outbox)).not.toContain(token);
  });

  it('refuses a link past its 15 minutes', async () => {
    const w = await privateSite(t.deps, t.app);
    const email = unique('late');
    await grant(t.app, w.key, email);
    await t.deps.mailDispatcher.drain();
    await askForLink(t.app, w.root, email);
    const link = await mailedLink(t.deps, smtp, email);
    t.clock.advance(15 * 60_000 + 1_000);
    const res = await openLink(t.app, link);
    expect(res.statusCode).toBe(400);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('ends a session at the next request once its grant is revoked or has expired, and at sign-out', async () => {
    const w = await privateSite(t.deps, t.app);
    const email = unique('reader');
    await grant(t.app, w.key, email);
    await t.deps.mailDispatcher.drain();
    const cookie = await signIn(t.deps, t.app, smtp, w.root, email);
    const url = `${w.root}/v1/guides/secret`;
    expect((await visit(t.app, url, { cookie })).statusCode).toBe(200);
    // Filled the site's kept answers: a request without a session is still sent to the login page.
    expect((await visit(t.app, url)).statusCode).toBe(302);
    await revoke(t.app, w.key, email);
    const after = await visit(t.app, url, { cookie });
    expect(after.statusCode).toBe(302);
    expect(String(after.headers['set-cookie'])).toContain('Max-Age=0');

    // Expiry: a grant that ends in an hour.
    const later = unique('expiring');
    await grant(
      t.app,
      w.key,
      later,
      new Date(t.clock.now() + 3_600_000).toISOString().replace('.000Z', '+00:00'),
    );
    await t.deps.mailDispatcher.drain();
    const second = await signIn(t.deps, t.app, smtp, w.root, later);
    expect((await visit(t.app, url, { cookie: second })).statusCode).toBe(200);
    t.clock.advance(3_600_000 + 1_000);
    expect((await visit(t.app, url, { cookie: second })).statusCode).toBe(302);

    // Sign-out.
    const third = unique('leaving');
    await grant(t.app, w.key, third);
    await t.deps.mailDispatcher.drain();
    const session = await signIn(t.deps, t.app, smtp, w.root, third);
    const out = await t.app.inject({ method: 'POST', url: `${w.root}/logout`, headers: { cookie: session } });
    expect(out.statusCode).toBe(302);
    expect(out.headers.location).toBe(`${w.root}/login`);
    expect((await visit(t.app, url, { cookie: session })).statusCode).toBe(302);
  });

  it('refuses a forged or another site’s cookie', async () => {
    const a = await privateSite(t.deps, t.app);
    const b = await privateSite(t.deps, t.app);
    const email = unique('one-site');
    await grant(t.app, a.key, email);
    await t.deps.mailDispatcher.drain();
    const cookie = await signIn(t.deps, t.app, smtp, a.root, email);
    expect((await visit(t.app, `${b.root}/v1/guides/secret`, { cookie })).statusCode).toBe(302);
    // A character well inside the signature: the last one of base64 carries bits that decoding drops.
    const at = cookie.length - 8;
    const forged = cookie.slice(0, at) + (cookie[at] === 'A' ? 'B' : 'A') + cookie.slice(at + 1);
    expect((await visit(t.app, `${a.root}/v1/guides/secret`, { cookie: forged })).statusCode).toBe(302);
  });

  it('audits under security: link requested (masked), session started, verify failed, logout; never a token', async () => {
    const w = await privateSite(t.deps, t.app);
    const email = unique('audited');
    await grant(t.app, w.key, email);
    await t.deps.mailDispatcher.drain();
    await askForLink(t.app, w.root, email);
    const link = await mailedLink(t.deps, smtp, email);
    const opened = await openLink(t.app, link);
    await openLink(t.app, link);
    await t.app.inject({ method: 'POST', url: `${w.root}/logout`, headers: { cookie: cookieOf(opened)! } });
    const entries = (await auditEntries(t.deps, w.project.id)).filter((e) =>
      ['readerLogin', 'readerSession'].includes(e.entity),
    );
    const messages = entries.map((e) => e.message).reverse();
    expect(messages).toEqual([
      `Sign-in link requested for ${email[0]}***@example.com`,
      `Reader session started for ${email} (e-mail link)`,
      'Reader sign-in refused (link): link already used',
      `Reader ${email} signed out`,
    ]);
    expect(entries.every((e) => e.scope === 'security')).toBe(true);
    const all = JSON.stringify(await auditEntries(t.deps, w.project.id));
    expect(all).not.toContain(link.searchParams.get('token')!);
    expect(entries.find((e) => e.message.startsWith('Sign-in link'))!.details).not.toContain(email);
  });

  it('rate limits link requests per client address and per address, without telling addresses apart', async () => {
    const w = await privateSite(t.deps, t.app);
    const email = unique('limited');
    await grant(t.app, w.key, email);
    await t.deps.mailDispatcher.drain();
    const sent = smtp.to(email).length;
    for (let i = 0; i < 8; i++)
      expect((await askForLink(t.app, w.root, email, `10.1.0.${i}`)).statusCode).toBe(200);
    await t.deps.mailDispatcher.drain();
    expect(smtp.to(email).length - sent).toBe(5);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await askForLink(t.app, w.root, unique('x'), '10.2.0.1')).statusCode);
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it('keeps the answer fast while the mail server is down, and sends the mail once it is back', async () => {
    const down = new SmtpReceiver();
    await down.start();
    const port = down.port;
    await down.stop();
    const app = await buildTestApp({
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, SITE_SESSION_SECRET: SECRET },
    });
    try {
      const w = await privateSite(app.deps, app.app);
      const email = unique('patient');
      const started = performance.now();
      await grant(app.app, w.key, email);
      const res = await askForLink(app.app, w.root, email);
      expect(res.statusCode).toBe(200);
      expect(performance.now() - started).toBeLessThan(1_000);
      await app.deps.mailDispatcher.drain();
      const pending = await app.deps.database.db.selectFrom('mail_outbox').selectAll().execute();
      expect(pending.map((m) => [m.status, m.attempts])).toEqual([
        ['pending', 1],
        ['pending', 1],
      ]);
      // Back on the same port; the retry is due ten seconds later.
      const back = await new SmtpReceiver().start(port);
      try {
        app.clock.advance(11_000);
        await app.deps.mailDispatcher.drain();
        expect(back.to(email)).toHaveLength(2);
        const opened = await openLink(
          app.app,
          (await import('../helpers/smtp-receiver.ts')).linkIn(back.to(email)[1]!),
        );
        expect(opened.statusCode).toBe(302);
      } finally {
        await back.stop();
      }
    } finally {
      await app.close();
    }
  });
});

describe('sessions across instances (site.md §6)', () => {
  it('ends a session on one instance at the next request after its grant is revoked on another', async () => {
    const other = await buildTestApp({
      sharedWith: t,
      env: { SMTP_URL: smtp.url, SITE_SESSION_SECRET: SECRET },
    });
    try {
      const w = await privateSite(t.deps, t.app);
      const email = unique('two-instances');
      await grant(t.app, w.key, email);
      await t.deps.mailDispatcher.drain();
      const cookie = await signIn(t.deps, t.app, smtp, w.root, email);
      const url = `${w.root}/v1/guides/secret`;
      // The session signed by the first instance is good on the second (one secret, one database).
      expect((await visit(other.app, url, { cookie })).statusCode).toBe(200);
      await revoke(t.app, w.key, email);
      expect((await visit(other.app, url, { cookie })).statusCode).toBe(302);
    } finally {
      await other.close();
    }
  });
});

describe('the server secret (site.md §6)', () => {
  it('answers 503 on PostgreSQL without SITE_SESSION_SECRET, and the start says why; on SQLite a key file', async () => {
    const app = await buildTestApp({ env: { SITE_SESSION_SECRET: '' } });
    try {
      const w = await privateSite(app.deps, app.app);
      const res = await visit(app.app, `${w.root}/v1/guides/secret`, { cookie: 'quire_reader=unsigned' });
      const warnings: string[] = [];
      const log = {
        info: () => undefined,
        warn: (_d: object, message: string) => void warnings.push(message),
      };
      app.deps.jobs.find((job) => job.name === 'site session key')!.start(log);
      if (dialectName === 'postgres') {
        expect(res.statusCode).toBe(503);
        expect(res.body).not.toContain('quokkaword');
        expect(warnings.join()).toContain('SITE_SESSION_SECRET');
      } else {
        expect(res.statusCode).toBe(302);
        expect(warnings).toEqual([]);
        const name = app.deps.database.sqlite!.name;
        expect(fs.existsSync(`${name}.site-key`)).toBe(true);
      }
    } finally {
      await app.close();
    }
  });
});

describe('feedback on a private site (site.md §6, §7)', () => {
  it('is taken from a signed-in reader, and keeps nothing of the session', async () => {
    const w = await privateSite(t.deps, t.app);
    const email = unique('reader');
    await grant(t.app, w.key, email);
    const fields = { page: '/v1/guides/secret', helpful: 'no', message: 'More examples, please.' };
    const without = await sendFeedback(t.app, w.root, fields);
    expect(without.statusCode).toBe(404);
    expect(await storedFeedback(t.deps, w.project.id)).toEqual([]);
    const cookie = await signIn(t.deps, t.app, smtp, w.root, email);
    const page = await visit(t.app, `${w.root}/v1/guides/secret`, { cookie });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Was this page helpful?');
    const sent = await sendFeedback(t.app, w.root, fields, { cookie });
    expect(sent.statusCode, sent.body).toBe(303);
    expect(sent.headers['set-cookie']).toBeUndefined();
    const stored = await storedFeedback(t.deps, w.project.id);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(email);
    // The grant revoked, the session no longer counts.
    await revoke(t.app, w.key, email);
    expect((await sendFeedback(t.app, w.root, fields, { cookie })).statusCode).toBe(404);
    expect(await storedFeedback(t.deps, w.project.id)).toHaveLength(1);
  });
});
