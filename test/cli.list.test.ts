import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { auditEntries } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

async function quire(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, t.deps);
  return { code, stdout, stderr, json: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : null };
}

async function made(...argv: string[]): Promise<Record<string, unknown>> {
  const res = await quire(...argv);
  expect(res.code, `${argv.join(' ')}: ${res.stderr}`).toBe(0);
  return res.json!;
}

describe('bin/quire list commands and key rotation', () => {
  it('lists projects, keys, versions, sections and users as one {items} object each', async () => {
    const before = (await made('project', 'list')).items as unknown[];
    const acme = await made('project', 'create', '--name', 'Acme', '--plan', 'enterprise');
    const other = await made('project', 'create', '--name', 'Other');
    const projects = (await made('project', 'list')).items as { id: number; name: string; plan: string }[];
    expect(projects).toHaveLength(before.length + 2);
    expect(projects.slice(-2)).toMatchObject([
      { id: acme.id, name: 'Acme', plan: 'enterprise' },
      { id: other.id, name: 'Other', plan: 'free' },
    ]);

    const id = String(acme.id);
    const v1 = await made('version', 'create', '--project', id, '--name', '1.0', '--published');
    await made('version', 'create', '--project', String(other.id), '--name', 'elsewhere');
    const guides = await made('documentation', 'create', '--version', String(v1.id), '--title', 'Guides');
    const user = await made(
      'user',
      'create',
      '--project',
      id,
      '--name',
      'Ann',
      '--email',
      'ann@acme.io',
      '--role',
      'WRITER',
    );
    const key = await made('key', 'create', '--project', id, '--name', 'ci', '--permissions', 'page.read');

    const listed = await quire('key', 'list', '--project', id);
    expect(listed.stdout.trim().split('\n')).toHaveLength(1);
    expect(listed.json).toEqual({
      items: [expect.objectContaining({ id: key.id, name: 'ci', prefix: (key.key as string).slice(0, 7) })],
    });
    // Only the prefix: neither the plaintext nor its hash is ever printed again.
    expect(listed.stdout).not.toContain(key.key as string);
    expect(listed.stdout).not.toMatch(/[0-9a-f]{64}/);

    expect((await made('version', 'list', '--project', id)).items).toEqual([
      expect.objectContaining({ id: v1.id, name: '1.0' }),
    ]);
    expect((await made('documentation', 'list', '--version', String(v1.id))).items).toEqual([
      expect.objectContaining({ id: guides.id, title: 'Guides' }),
    ]);
    expect((await made('user', 'list', '--project', id)).items).toEqual([
      expect.objectContaining({ id: user.id, email: 'ann@acme.io' }),
    ]);
  });

  it('rotates a key: a new secret with the same grants, the old one refused at once, both audited', async () => {
    const project = await made('project', 'create', '--name', 'Rot', '--plan', 'enterprise');
    const id = String(project.id);
    const version = await made('version', 'create', '--project', id, '--name', 'v', '--published');
    const old = await made(
      'key',
      'create',
      '--project',
      id,
      '--name',
      'pipeline',
      '--permissions',
      'page.read,project.read',
      '--versions',
      String(version.id),
    );
    const http = client(t.app);
    expect(
      (await http.get('/api/v1/version', { headers: { 'x-api-key': old.key as string } })).statusCode,
    ).toBe(200);

    const rotated = await quire('key', 'rotate', String(old.id));
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh = rotated.json!;
    expect(fresh).toMatchObject({
      name: 'pipeline',
      permissions: ['page.read', 'project.read'],
      versions: [version.id],
      revoked: null,
      replaces: old.id,
    });
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.key).toMatch(/^qk_/);
    expect(fresh.key).not.toBe(old.key);

    expect(
      (await http.get('/api/v1/version', { headers: { 'x-api-key': old.key as string } })).statusCode,
    ).toBe(403);
    expect(
      (await http.get('/api/v1/version', { headers: { 'x-api-key': fresh.key as string } })).statusCode,
    ).toBe(200);
    const keys = (await made('key', 'list', '--project', id)).items as {
      id: number;
      revoked: string | null;
    }[];
    expect(keys.map((k) => [k.id, k.revoked === null])).toEqual([
      [old.id, false],
      [fresh.id, true],
    ]);
    const audit = await auditEntries(t.deps, Number(project.id));
    // Newest first: the new key is made, then the old one revoked, in the rotation's transaction.
    expect(audit.slice(0, 2).map((e) => `${e.scope} ${e.entity} ${e.operation}`)).toEqual([
      'security apiKey DEL',
      'security apiKey INS',
    ]);

    const again = await quire('key', 'rotate', String(old.id));
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `quire: API key ${String(old.id)} is revoked: create a new key instead of rotating it.\n`,
    );
  });

  it('answers usage errors and missing records with one line on standard error', async () => {
    const cases: [string[], number][] = [
      [['key', 'list'], 2],
      [['key', 'list', '--project', 'x'], 2],
      [['key', 'list', '--project', '9999'], 1],
      [['key', 'rotate', '9999'], 1],
      [['documentation', 'list', '--version', '9999'], 1],
      [['project', 'list', 'extra'], 2],
    ];
    for (const [argv, code] of cases) {
      const res = await quire(...argv);
      expect(res.code, argv.join(' ')).toBe(code);
      expect(res.stdout).toBe('');
      expect(res.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });
});
