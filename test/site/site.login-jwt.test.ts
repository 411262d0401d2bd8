import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { auditEntries } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/test-app.ts';
import { visit } from './site-helpers.ts';
import { quire, useTempFiles } from './site-cli.ts';
import { askForLink, cookieOf, grant, hs256Secret, privateSite } from './login-helpers.ts';

const t = useTestApp({
  env: { RATE_LIMIT_SCALE: '100', SITE_SESSION_SECRET: Buffer.alloc(32, 9).toString('base64') },
});
const tempFile = useTempFiles();

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (key: typeof rsa.publicKey) => key.export({ type: 'spki', format: 'pem' }).toString();
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A private site whose own login signs with `file`'s key, set through `bin/quire project update`. */
async function withKey(file: string | Buffer) {
  const w = await privateSite(t.deps, t.app);
  const res = await quire(
    t.deps,
    'project',
    'update',
    String(w.project.id),
    '--reader-jwt-key',
    tempFile(file, 'key'),
  );
  expect(res.code, res.stderr).toBe(0);
  return w;
}

const seconds = () => Math.floor(t.clock.now() / 1000);

function claims(email = 'jwt-reader@example.com', exp: number | null = seconds() + 600) {
  const jwt = new SignJWT({ email }).setIssuedAt(seconds());
  return exp === null ? jwt : jwt.setExpirationTime(exp);
}

const jwtLogin = (root: string, token: string, next = '/v1/guides/secret') =>
  visit(t.app, `${root}/login/jwt?token=${encodeURIComponent(token)}&next=${encodeURIComponent(next)}`);

async function refused(root: string, token: string) {
  const res = await jwtLogin(root, token);
  expect(res.statusCode).toBe(400);
  expect(res.body).toContain('was refused');
  expect(res.headers['set-cookie']).toBeUndefined();
}

describe('custom login by JWT (site.md §6)', () => {
  const secret = hs256Secret(40);

  it('starts a session from an HS256 token signed with the file’s bytes, one trailing newline dropped', async () => {
    const w = await withKey(Buffer.concat([secret, Buffer.from('\n')]));
    const token = await claims().setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const res = await jwtLogin(w.root, token);
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`${w.root}/v1/guides/secret`);
    const page = await visit(t.app, `${w.root}/v1/guides/secret`, { cookie: cookieOf(res)! });
    expect(page.statusCode).toBe(200);
    const audit = await auditEntries(t.deps, w.project.id);
    expect(audit.map((e) => e.message)).toContain('Reader session started for jwt-reader@example.com (JWT)');
    expect(JSON.stringify(audit)).not.toContain(token);
    expect(JSON.stringify(audit)).not.toContain(secret.toString('base64'));
  });

  it('accepts RS256 and ES256 tokens signed by the public key’s pair, and an exp within 60 s of skew', async () => {
    const r = await withKey(pem(rsa.publicKey));
    const rs = await claims().setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
    expect((await jwtLogin(r.root, rs)).statusCode).toBe(302);
    const e = await withKey(pem(ec.publicKey));
    const es = await claims('ec@example.com', seconds() - 30)
      .setProtectedHeader({ alg: 'ES256' })
      .sign(ec.privateKey);
    expect((await jwtLogin(e.root, es)).statusCode).toBe(302);
  });

  it('refuses alg none, other algorithms, key confusion, a past, missing or far exp, and no email', async () => {
    const h = await withKey(secret);
    const r = await withKey(pem(rsa.publicKey));
    // alg: none, unsigned.
    await refused(
      h.root,
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ email: 'a@example.com', exp: seconds() + 60 })}.`,
    );
    // Another algorithm with the right secret.
    await refused(h.root, await claims().setProtectedHeader({ alg: 'HS512' }).sign(secret));
    // ES256 on a site whose key is RS256.
    await refused(r.root, await claims().setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey));
    // Key confusion: the RS256 public key used as an HS256 secret.
    await refused(
      r.root,
      await claims()
        .setProtectedHeader({ alg: 'HS256' })
        .sign(Buffer.from(pem(rsa.publicKey))),
    );
    // A wrong secret.
    await refused(h.root, await claims().setProtectedHeader({ alg: 'HS256' }).sign(randomBytes(40)));
    // exp past (beyond the skew), missing, more than 24 hours ahead.
    await refused(
      h.root,
      await claims(undefined, seconds() - 120)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secret),
    );
    await refused(h.root, await claims(undefined, null).setProtectedHeader({ alg: 'HS256' }).sign(secret));
    await refused(
      h.root,
      await claims(undefined, seconds() + 25 * 3600)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secret),
    );
    // No email.
    await refused(
      h.root,
      await new SignJWT({})
        .setExpirationTime(seconds() + 60)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secret),
    );
    // Not a token at all.
    await refused(h.root, 'garbage');
    const audit = await auditEntries(t.deps, h.project.id);
    expect(
      audit.filter((e) => e.message.startsWith('Reader sign-in refused (jwt)')).length,
    ).toBeGreaterThanOrEqual(7);
  });

  it('ends JWT sessions when the key changes, and refuses keys that are not fit', async () => {
    const w = await withKey(secret);
    const res = await jwtLogin(w.root, await claims().setProtectedHeader({ alg: 'HS256' }).sign(secret));
    const cookie = cookieOf(res)!;
    expect((await visit(t.app, `${w.root}/`, { cookie })).statusCode).toBe(200);
    const changed = await quire(
      t.deps,
      'project',
      'update',
      String(w.project.id),
      '--reader-jwt-key',
      tempFile(hs256Secret(32), 'k'),
    );
    expect(changed.json).toMatchObject({ readerJwtKey: 'HS256' });
    expect((await visit(t.app, `${w.root}/`, { cookie })).statusCode).toBe(302);
    const short = await quire(
      t.deps,
      'project',
      'update',
      String(w.project.id),
      '--reader-jwt-key',
      tempFile('too short\n', 'k'),
    );
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('at least 32 bytes');
    const priv = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const privateKey = await quire(
      t.deps,
      'project',
      'update',
      String(w.project.id),
      '--reader-jwt-key',
      tempFile(priv, 'k'),
    );
    expect(privateKey.code).not.toBe(0);
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    const weak = await quire(
      t.deps,
      'project',
      'update',
      String(w.project.id),
      '--reader-jwt-key',
      tempFile(pem(small), 'k'),
    );
    expect(weak.code).not.toBe(0);
  });
});

describe('next only leads to a path of the same site (site.md §6)', () => {
  const secret = hs256Secret(32);
  const hostile = [
    '//evil.example',
    '//evil.example/path',
    '/\\evil.example',
    '/\\/evil.example',
    '\\\\evil.example',
    'https://evil.example/',
    'http:evil.example',
    'javascript:alert(1)',
    '%2F%2Fevil.example',
    '/%2F%2Fevil.example',
    '/%2f/evil.example',
    '/%5Cevil.example',
    '/%255C%255Cevil.example',
    '/%2e%2e/%2e%2e/api/v1',
    '/../../docs',
    '/\t/evil.example',
    '/ /evil.example',
    '/%09/evil.example',
    '',
  ];

  it.each(hostile)('refuses next=%j: the site’s root instead', async (next) => {
    const w = await withKey(secret);
    const token = await claims().setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const res = await jwtLogin(w.root, token, next);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`${w.root}/`);
    // And the login form does not carry it either.
    const form = await visit(t.app, `${w.root}/login?next=${encodeURIComponent(next)}`);
    expect(form.body).not.toContain('name="next"');
  });

  it('keeps a path of the site, its query included', async () => {
    const w = await withKey(secret);
    const token = await claims().setProtectedHeader({ alg: 'HS256' }).sign(secret);
    const res = await jwtLogin(w.root, token, '/v1/guides/secret?tab=2');
    expect(res.headers.location).toBe(`${w.root}/v1/guides/secret?tab=2`);
  });
});

describe('the same answer in the same time whatever the address (site.md §6)', () => {
  it('answers a granted and an unknown address within 10 ms of each other at the median of 200', async () => {
    const w = await privateSite(t.deps, t.app);
    const granted = 'granted-timing@example.com';
    await grant(t.app, w.key, granted);
    const unknown = 'unknown-timing@example.com';
    for (let i = 0; i < 20; i++) await askForLink(t.app, w.root, i % 2 ? granted : unknown, `10.9.0.${i}`);
    const times: Record<string, number[]> = { [granted]: [], [unknown]: [] };
    let body: Record<string, string> = {};
    for (let i = 0; i < 400; i++) {
      const email = i % 2 === 0 ? granted : unknown;
      const started = performance.now();
      const res = await askForLink(t.app, w.root, email, `10.8.${Math.floor(i / 200)}.${i % 200}`);
      times[email]!.push(performance.now() - started);
      expect(res.statusCode).toBe(200);
      body = { ...body, [email]: res.body };
    }
    const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
    expect(Math.abs(median(times[granted]!) - median(times[unknown]!))).toBeLessThan(10);
    expect(body[granted]).toBe(body[unknown]!.replace(unknown, granted));
  }, 120_000);
});
