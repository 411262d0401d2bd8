import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { auditEntries } from './helpers/factories.ts';
import { client, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/** Runs a command in-process over the test app's services; returns the parsed JSON and the streams. */
async function quire(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, t.deps);
  return { code, stdout, stderr, json: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : null };
}

describe('bin/quire admin commands', () => {
  it('runs every command, printing one JSON object each, and audits each change', async () => {
    const project = await quire(
      'project',
      'create',
      '--name',
      'Acme',
      '--plan',
      'enterprise',
      '--access',
      'invite',
    );
    expect(project.code).toBe(0);
    expect(project.stdout.trim().split('\n')).toHaveLength(1);
    expect(project.json).toMatchObject({
      name: 'Acme',
      plan: 'enterprise',
      access: 'invite',
      basePath: null,
      host: null,
    });
    const projectId = String(project.json!.id);

    const updated = await quire(
      'project',
      'update',
      projectId,
      '--base-path',
      '/docs',
      '--host',
      'https://docs.acme.io',
    );
    expect(updated.json).toMatchObject({ basePath: '/docs', host: 'https://docs.acme.io' });

    const version = await quire(
      'version',
      'create',
      '--project',
      projectId,
      '--name',
      'Version Eins',
      '--published',
    );
    expect(version.json).toMatchObject({
      name: 'Version Eins',
      slug: 'version-eins',
      published: true,
      ordr: 1,
    });
    const versionId = String(version.json!.id);

    const section = await quire(
      'documentation',
      'create',
      '--version',
      versionId,
      '--title',
      'Über uns',
      '--slug',
      'about',
    );
    expect(section.json).toMatchObject({ title: 'Über uns', slug: 'about', published: false, ordr: 1 });

    const category = await quire(
      'category',
      'create',
      '--documentation',
      String(section.json!.id),
      '--title',
      'Basics',
    );
    expect(category.json).toMatchObject({ title: 'Basics', documentationId: section.json!.id });

    const user = await quire(
      'user',
      'create',
      '--project',
      projectId,
      '--name',
      'Ann',
      '--email',
      'Ann@Acme.io',
      '--role',
      'PUBLISHER',
    );
    expect(user.json).toMatchObject({
      name: 'Ann',
      email: 'ann@acme.io',
      role: 'PUBLISHER',
      lastActiveAt: null,
    });

    const key = await quire(
      'key',
      'create',
      '--project',
      projectId,
      '--name',
      'CI',
      '--permissions',
      'project.read,page.read',
      '--versions',
      versionId,
      '--user',
      String(user.json!.id),
    );
    expect(key.json).toMatchObject({
      name: 'CI',
      permissions: ['project.read', 'page.read'],
      versions: [Number(versionId)],
      revoked: null,
    });
    const plaintext = key.json!.key as string;
    expect(plaintext).toMatch(/^qk_/);
    expect((await client(t.app, plaintext).get('/version')).statusCode).toBe(200);

    const revoked = await quire('key', 'revoke', String(key.json!.id));
    expect(revoked.json).toMatchObject({
      id: key.json!.id,
      revoked: expect.stringMatching(/\+0000$/) as string,
    });
    expect(revoked.json).not.toHaveProperty('key');
    expect((await client(t.app, plaintext).get('/version')).statusCode).toBe(403);

    const migrate = await quire('migrate');
    expect(migrate.json).toEqual({ migrated: true, applied: [] });

    const entries = await auditEntries(t.deps, Number(projectId));
    expect(entries.map((e) => `${e.scope} ${e.entity} ${e.operation}`).reverse()).toEqual([
      'other project INS',
      'hosting project UPD',
      'hosting project UPD',
      'content version INS',
      'content documentation INS',
      'content category INS',
      'users user INS',
      'security apiKey INS',
      'security apiKey DEL',
    ]);
    expect(entries.every((e) => e.api_key_label === null && JSON.parse(e.details).source === 'cli')).toBe(
      true,
    );
  });

  it('fails with one line on stderr and a non-zero exit code', async () => {
    const cases: string[][] = [
      ['project', 'create'],
      ['project', 'create', '--name', 'X', '--plan', 'gold'],
      ['key', 'create', '--project', '999'],
      ['key', 'create', '--project', 'abc'],
      ['key', 'create', '--project', '1', '--permissions', 'page.fly'],
      ['key', 'revoke', '12345'],
      ['version', 'create', '--project', '1'],
      ['user', 'create', '--project', '1', '--name', 'A', '--email', 'not-an-email', '--role', 'ADMIN'],
      ['project', 'create', '--name', 'X', '--unknown-flag'],
      ['frobnicate'],
      [],
      ['project', 'create', '--name', '   '],
      ['project', 'create', '--name', 'X', '--plan', 'gold\nplatinum'],
      ['version', 'create', '--project', '1', '--name', 'v', '--slug', 'Bad Slug'],
    ];
    for (const argv of cases) {
      const res = await quire(...argv);
      expect(res.code, argv.join(' ')).not.toBe(0);
      expect(res.stdout, argv.join(' ')).toBe('');
      expect(res.stderr.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });

  it('lists its commands as one JSON object on request', async () => {
    const help = await quire('help');
    expect(help.code).toBe(0);
    expect(help.stdout.trim().split('\n')).toHaveLength(1);
    expect((help.json as { usage: string[] }).usage).toEqual(
      expect.arrayContaining([expect.stringMatching(/^key revoke ID$/)]),
    );
  });

  it('names a field problem once', async () => {
    const res = await quire('project', 'create', '--name', ' ');
    expect(res.stderr).toBe('quire: name must not be blank\n');
  });

  it('refuses a second user with the same e-mail and an explicit slug that is taken', async () => {
    const project = await quire('project', 'create', '--name', 'Acme');
    const id = String(project.json!.id);
    await quire('user', 'create', '--project', id, '--name', 'A', '--email', 'a@acme.io', '--role', 'WRITER');
    const dup = await quire(
      'user',
      'create',
      '--project',
      id,
      '--name',
      'B',
      '--email',
      'A@acme.io',
      '--role',
      'WRITER',
    );
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    await quire('version', 'create', '--project', id, '--name', 'v1', '--slug', 'v1');
    const taken = await quire('version', 'create', '--project', id, '--name', 'again', '--slug', 'v1');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already used/);
    const generated = await quire('version', 'create', '--project', id, '--name', 'v1');
    expect(generated.json).toMatchObject({ slug: 'v1-2' });
  });
});

describe('the bin/quire executable', () => {
  it('works from any directory on DATABASE_URL, with the output contract', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-'));
    const bin = path.resolve('bin/quire');
    const env = { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'cli.db')}` };
    try {
      const run = promisify(execFile);
      const ok = await run(bin, ['project', 'create', '--name', 'From the shell', '--plan', 'grow'], {
        cwd: dir,
        env,
      });
      expect(ok.stdout.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(ok.stdout)).toMatchObject({ id: 1, name: 'From the shell', plan: 'grow' });
      const failed = await run(bin, ['key', 'revoke', '77'], { cwd: dir, env }).catch(
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(failed).toMatchObject({ code: 1, stdout: '' });
      expect((failed as { stderr: string }).stderr.trim()).toBe('quire: API key 77 not found.');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
