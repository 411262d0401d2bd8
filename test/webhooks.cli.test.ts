import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { WEBHOOK_EVENT_TYPES } from '../src/modules/webhooks/webhooks.schemas.ts';
import { auditEntries, createWorld } from './helpers/factories.ts';
import { client, dialectName, useTestApp } from './helpers/test-app.ts';

const t = useTestApp({
  env: {
    WEBHOOK_ALLOW_PRIVATE: 'false',
    ...(dialectName === 'postgres' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {}),
  },
  overrides: { webhookResolver: () => Promise.resolve([{ address: '203.0.113.40', family: 4 }]) },
});

async function quire(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, t.deps);
  return { code, stdout, stderr, json: code === 0 ? (JSON.parse(stdout) as Record<string, unknown>) : null };
}

describe('bin/quire webhook', () => {
  it('creates (showing the secret once), lists without secrets, and deletes, each audited', async () => {
    const w = await createWorld(t.deps);
    const project = String(w.project.id);
    const all = await quire(
      'webhook',
      'create',
      '--project',
      project,
      '--url',
      'https://hooks.example.test/a',
    );
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim().split('\n')).toHaveLength(1);
    expect(all.json).toMatchObject({
      url: 'https://hooks.example.test/a',
      events: [...WEBHOOK_EVENT_TYPES],
      description: null,
      secret: expect.stringMatching(/^whsec_/) as string,
    });
    const some = await quire(
      'webhook',
      'create',
      '--project',
      project,
      '--url',
      'https://hooks.example.test/b',
      '--events',
      'page.published,import.completed',
      '--description',
      'Deploys',
    );
    expect(some.json).toMatchObject({
      events: ['page.published', 'import.completed'],
      description: 'Deploys',
    });

    const list = await quire('webhook', 'list', '--project', project);
    expect(list.code).toBe(0);
    expect(list.json).toEqual({
      items: [
        expect.objectContaining({ id: all.json!.id, url: 'https://hooks.example.test/a' }),
        expect.objectContaining({ id: some.json!.id, description: 'Deploys' }),
      ],
    });
    expect(list.stdout).not.toContain('whsec_');
    // The same webhooks over HTTP, in the API's list envelope (the command keeps its {items}).
    expect((await client(t.app, w.key).get('/webhooks')).json()).toMatchObject({ data: list.json?.items });

    const deleted = await quire('webhook', 'delete', String(all.json!.id));
    expect(deleted).toMatchObject({ code: 0, json: { id: all.json!.id, deleted: true } });
    expect((await quire('webhook', 'list', '--project', project)).json).toEqual({
      items: [expect.objectContaining({ id: some.json!.id })],
    });
    const entries = await auditEntries(t.deps, w.project.id);
    expect(
      entries.filter((e) => e.entity === 'webhook').map((e) => [e.operation, JSON.parse(e.details).source]),
    ).toEqual([
      ['DEL', 'cli'],
      ['INS', 'cli'],
      ['INS', 'cli'],
    ]);
  });

  it('purges deliveries finished more than 30 days ago', async () => {
    const w = await createWorld(t.deps);
    const made = await quire(
      'webhook',
      'create',
      '--project',
      String(w.project.id),
      '--url',
      'https://a.example.test/',
    );
    await client(t.app, w.key).post(`/documentation/${w.documentation.id}/page`, {
      title: 'P',
      content: 'x',
    });
    // Deleting the webhook gives its pending delivery up: finished now.
    await quire('webhook', 'delete', String(made.json!.id));
    const count = () =>
      t.deps.database.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('webhook_id', '=', made.json!.id as number)
        .execute();
    t.clock.advance(29 * 24 * 3_600_000);
    expect((await quire('purge')).json).toMatchObject({ webhookDeliveries: 0 });
    expect(await count()).toHaveLength(1);
    t.clock.advance(2 * 24 * 3_600_000);
    expect((await quire('purge')).json).toMatchObject({ webhookDeliveries: 1 });
    expect(await count()).toHaveLength(0);
  });

  it('reports bad input on standard error with a non-zero exit', async () => {
    const w = await createWorld(t.deps);
    const project = String(w.project.id);
    const cases: Array<[string[], RegExp, number]> = [
      [['webhook', 'create', '--project', project], /--url is required/, 2],
      [
        ['webhook', 'create', '--project', project, '--url', 'x', '--events', 'page.nope'],
        /unknown event type/,
        2,
      ],
      [['webhook', 'create', '--project', project, '--url', 'ftp://a.example.test/'], /http or https/, 1],
      [['webhook', 'create', '--project', project, '--url', 'http://127.0.0.1/'], /loopback/, 1],
      [['webhook', 'create', '--project', '999999', '--url', 'https://a.example.test/'], /not found/, 1],
      [['webhook', 'delete', '999999'], /Webhook 999999 not found/, 1],
      [['webhook', 'list'], /--project is required/, 2],
    ];
    for (const [argv, message, code] of cases) {
      const result = await quire(...argv);
      expect(result.code, argv.join(' ')).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr, argv.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
