import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/main.ts';
import { useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

async function quire(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, t.deps);
  return { code, stdout, stderr };
}

describe('bin/quire command line', () => {
  it('prints per-command help with examples on standard output', async () => {
    for (const argv of [
      ['sync', '--help'],
      ['help', 'sync'],
    ]) {
      const help = await quire(...argv);
      expect(help.code, argv.join(' ')).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout).toMatch(/^Usage: quire sync \[options\] <DIR>/);
      expect(help.stdout).toMatch(/--key <KEY>.*\(env: QUIRE_KEY\)/s);
      expect(help.stdout).toMatch(/--url <URL>.*\(env: QUIRE_URL\)/s);
      expect(help.stdout).toMatch(/Examples:\n {2}\$ QUIRE_URL=/);
    }
    const keyHelp = await quire('key', 'create', '--help');
    expect(keyHelp.code).toBe(0);
    expect(keyHelp.stdout).toMatch(/--permissions <all\|P1,P2,...>.*page\.read/s);
    expect(keyHelp.stdout).toContain('$ quire key create --project 1 --name ci');
    const userHelp = await quire('user', 'create', '--help');
    expect(userHelp.stdout).toMatch(
      /--role <ROLE>.*\(choices: "ADMIN", "PUBLISHER",\s+"WRITER", "REVIEWER"\)/s,
    );
  });

  it('suggests the command or option meant, on one line with exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['projct', 'list'], /unknown command 'projct' \(Did you mean project\?\)/],
      [['project', 'lst'], /unknown command 'lst' \(Did you mean list\?\)/],
      [['project', 'create', '--nmae', 'X'], /unknown option '--nmae' \(Did you mean --name\?\)/],
      [['sync', '.', '--dryrun'], /unknown option '--dryrun' \(Did you mean --dry-run\?\)/],
      [['key'], /'key' needs a command \(run 'quire key --help' for the list\)/],
    ];
    for (const [argv, pattern] of cases) {
      const res = await quire(...argv);
      expect(res.code, argv.join(' ')).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(res.stderr, argv.join(' ')).toMatch(pattern);
    }
  });

  it('lists the valid values when a value is not one of them', async () => {
    const plan = await quire('project', 'create', '--name', 'X', '--plan', 'gold');
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/'gold' is invalid\. Allowed choices are free, grow, enterprise\./);
    const { stdout } = await quire('project', 'create', '--name', 'Acme');
    const project = String((JSON.parse(stdout) as { id: number }).id);
    const permissions = await quire('key', 'create', '--project', project, '--permissions', 'page.fly');
    expect(permissions.code).toBe(2);
    expect(permissions.stderr).toMatch(
      /unknown permission\(s\): page\.fly; valid: all, .*page\.read.*search\.read/,
    );
    const events = await quire(
      'webhook',
      'create',
      '--project',
      project,
      '--url',
      'https://x.io',
      '--events',
      'page.flew',
    );
    expect(events.code).toBe(2);
    expect(events.stderr).toMatch(
      /unknown event type\(s\): page\.flew; valid: all, page\.created, .*import\.completed/,
    );
  });

  it('names the flag, not the field of the API, in a refusal', async () => {
    const { stdout } = await quire('project', 'create', '--name', 'Acme');
    const project = String((JSON.parse(stdout) as { id: number }).id);
    const res = await quire('webhook', 'create', '--project', project, '--url', 'ftp://x.io/hook');
    expect(res.code).toBe(1);
    expect(res.stderr).not.toMatch(/body\./);
    expect(res.stderr).toMatch(/^quire: .*--url /);
  });

  it('still lists every command as one JSON object for `quire help`', async () => {
    const help = await quire('help');
    expect(help.code).toBe(0);
    const usage = (JSON.parse(help.stdout) as { usage: string[] }).usage;
    expect(usage).toContain('key revoke ID');
    expect(usage).toContain(
      'sync DIR --url URL --key KEY --version SLUG [--publish] [--prune] [--dry-run] [--fail-on-breaking]',
    );
    expect(usage).toContain(
      'project create --name NAME [--plan free|grow|enterprise] [--access public|invite] [--base-path PATH] [--host URL] [--variables JSON] [--site-logo DATA_URL|/PATH] [--site-color #RRGGBB] [--site-css FILE] [--redirects FILE]',
    );
  });
});
