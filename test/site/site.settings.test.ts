import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { externalReference } from '../../src/modules/projects/site-css.ts';
import { checkedColor, contrastRatio } from '../../src/modules/projects/site-settings.ts';
import { auditEntries } from '../helpers/factories.ts';
import { useTestApp } from '../helpers/test-app.ts';
import { quire, useTempFiles } from './site-cli.ts';
import { createPublicSite, sitePage, visit } from './site-helpers.ts';

const t = useTestApp();
const tempFile = useTempFiles();

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** A project of its own, through the command line; answers its id as a string. */
async function newProject(...flags: string[]): Promise<string> {
  const made = await quire(t.deps, 'project', 'create', '--name', 'Themed', ...flags);
  expect(made.code, made.stderr).toBe(0);
  return String(made.json!.id);
}

/** Runs `project update ID …` and expects it refused: exit 1, one line on stderr, nothing on stdout. */
async function refused(id: string, ...flags: string[]): Promise<string> {
  const res = await quire(t.deps, 'project', 'update', id, ...flags);
  expect(res.code, flags.join(' ')).toBe(1);
  expect(res.stdout, flags.join(' ')).toBe('');
  expect(res.stderr.split('\n'), flags.join(' ')).toEqual([expect.stringMatching(/^quire: /), '']);
  return res.stderr.trim();
}

describe('site settings from bin/quire', () => {
  it('takes a host and nothing else, and a base path of plain segments outside Quire’s own paths', async () => {
    const id = await newProject();
    expect(await refused(id, '--host', 'https://docs.example.com/path')).toBe(
      "quire: host must name a host and nothing else: no path, query, fragment or user (got 'https://docs.example.com/path')",
    );
    expect(await refused(id, '--host', 'https://docs.example.com?x=1')).toMatch(/no path, query/);
    expect(await refused(id, '--host', 'https://docs.example.com#top')).toMatch(/no path, query/);
    expect(await refused(id, '--host', 'https://me:pw@docs.example.com')).toMatch(/or user/);
    expect(await refused(id, '--host', 'ftp://docs.example.com')).toMatch(/an http:\/\/ or https:\/\/ URL/);
    expect(await refused(id, '--host', 'javascript:alert(1)')).toMatch(/an http:\/\/ or https:\/\/ URL/);
    expect(await refused(id, '--host', 'https://bad host')).toMatch(/host/);
    for (const quirePath of ['/api', '/healthz/x', '/readyz', '/METRICS', '/sites/a']) {
      expect(await refused(id, '--base-path', quirePath)).toMatch(
        /^quire: basePath cannot start with \/\w+: Quire answers \/api\/, \/healthz, \/readyz, \/metrics and \/sites\/ itself/,
      );
    }
    expect(await refused(id, '--base-path', '/docs/../x')).toMatch(/'\.\.' is not one/);
    expect(await refused(id, '--base-path', '/a b')).toMatch(/'a b' is not one/);

    const ok = await quire(
      t.deps,
      'project',
      'update',
      id,
      '--host',
      'HTTPS://Docs.Example.com/',
      '--base-path',
      'help//v2/',
    );
    expect(ok.json).toMatchObject({ host: 'https://docs.example.com', basePath: '/help/v2' });
    const bare = await quire(
      t.deps,
      'project',
      'update',
      id,
      '--host',
      'Docs.Example.com:8443',
      '--base-path',
      '/',
    );
    expect(bare.json).toMatchObject({ host: 'docs.example.com:8443', basePath: null });
    const cleared = await quire(t.deps, 'project', 'update', id, '--host', '');
    expect(cleared.json).toMatchObject({ host: null });
  });

  it('refuses a logo another site would serve, and a data: URL that is not the image it says', async () => {
    const id = await newProject();
    for (const elsewhere of [
      'https://cdn.example.com/logo.png',
      'http://x.io/l.svg',
      '//cdn.example.com/logo.png',
    ]) {
      expect(await refused(id, '--site-logo', elsewhere)).toBe(
        "quire: siteLogo names another site: readers' browsers would fetch the logo from there, and the " +
          "site makes no request but to itself; give a data:image/...;base64, URL or a path on the site's host",
      );
    }
    expect(await refused(id, '--site-logo', '/\\cdn.example.com/logo.png')).toMatch(/backslash/);
    expect(await refused(id, '--site-logo', 'logo.png')).toMatch(/starting with '\/'/);
    expect(await refused(id, '--site-logo', 'data:image/png;base64,PHN2Zz48L3N2Zz4=')).toBe(
      'quire: siteLogo does not hold an image/png (its bytes say otherwise)',
    );
    expect(await refused(id, '--site-logo', 'data:text/html;base64,PGI+aGk8L2I+')).toMatch(
      /must be a data:image\/png, image\/jpeg, image\/webp or image\/svg\+xml URL in base64/,
    );
    expect(await refused(id, '--site-logo', `data:image/png;base64,${'A'.repeat(40_000)}`)).toMatch(
      /at most 32768 \(it is in every page\)/,
    );
    const svg = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64')}`;
    expect((await quire(t.deps, 'project', 'update', id, '--site-logo', svg)).json).toMatchObject({
      siteLogo: svg,
    });
    const own = await quire(t.deps, 'project', 'update', id, '--site-logo', '/brand/logo.svg');
    expect(own.json).toMatchObject({ siteLogo: '/brand/logo.svg' });
  });

  it('refuses a brand colour that would not keep text contrast at WCAG AA, naming the ratio', async () => {
    const id = await newProject();
    expect(await refused(id, '--site-color', '#ffcc00')).toBe(
      'quire: siteColor #ffcc00 has a contrast ratio of 1.51:1 against #ffffff as link text on the page ' +
        'background and behind the white text of buttons; WCAG AA needs at least 4.5:1: choose a darker colour',
    );
    expect(await refused(id, '--site-color', 'teal')).toBe(
      "quire: siteColor must be a colour written #RRGGBB (got 'teal')",
    );
    expect(await refused(id, '--site-color', '#0a5')).toMatch(/#RRGGBB/);
    const ok = await quire(t.deps, 'project', 'update', id, '--site-color', '#0B5E3A');
    expect(ok.json).toMatchObject({ siteColor: '#0b5e3a' });
  });

  it('refuses custom CSS over 64 KiB, not UTF-8, closing a style element or fetching from elsewhere', async () => {
    const id = await newProject();
    const big = tempFile(`a{color:#123456}\n${'/* padding */'.repeat(5_100)}`, 'big.css');
    expect(await refused(id, '--site-css', big)).toMatch(
      /^quire: siteCss is 66\d\d\d bytes; at most 65536 \(64 KiB\)$/,
    );
    const latin1 = tempFile(Buffer.from([0x61, 0x7b, 0x7d, 0xe9]), 'latin1.css');
    const notUtf8 = await quire(t.deps, 'project', 'update', id, '--site-css', latin1);
    expect(notUtf8.code).toBe(2);
    expect(notUtf8.stderr).toBe(`quire: --site-css ${latin1} is not UTF-8 text\n`);
    const missing = await quire(t.deps, 'project', 'update', id, '--site-css', '/nonexistent/site.css');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read \/nonexistent\/site.css \(ENOENT\)/);
    expect(await refused(id, '--site-css', tempFile('a{}</style><script>alert(1)</script>'))).toBe(
      'quire: siteCss must not contain </style',
    );
    expect(
      await refused(id, '--site-css', tempFile('@import url(https://fonts.example.com/f.css);')),
    ).toMatch(/^quire: siteCss would make the reader's browser ask another site: @import is not allowed/);
    expect(
      await refused(id, '--site-css', tempFile('body{background:url(http://x.example/bg.png)}')),
    ).toMatch(/url\(http:\/\/x.example\/bg.png\) names another site/);
    const ok = await quire(
      t.deps,
      'project',
      'update',
      id,
      '--site-css',
      tempFile('.brand{font-weight:700}'),
    );
    expect(ok.json).toMatchObject({ siteCss: '.brand{font-weight:700}' });
    const cleared = await quire(t.deps, 'project', 'update', id, '--site-css', '');
    expect(cleared.json).toMatchObject({ siteCss: null });
  });

  it('takes the site settings on project create too', async () => {
    const css = tempFile('h1{letter-spacing:0}');
    const rules = tempFile('/old >> /v1\n');
    const made = await quire(
      t.deps,
      'project',
      'create',
      '--name',
      'Born themed',
      '--site-color',
      '#1f5fbf',
      '--site-css',
      css,
      '--redirects',
      rules,
      '--site-logo',
      `data:image/png;base64,${PNG}`,
    );
    expect(made.json).toMatchObject({
      siteColor: '#1f5fbf',
      siteCss: 'h1{letter-spacing:0}',
      redirects: '/old >> /v1\n',
      siteLogo: `data:image/png;base64,${PNG}`,
    });
    const audited = await auditEntries(t.deps, Number(made.json!.id));
    expect(audited.map((e) => `${e.scope} ${e.operation} ${e.message}`).sort()).toEqual([
      'hosting INS Project redirects set',
      'hosting INS Project siteColor set',
      'hosting INS Project siteCss set',
      'hosting INS Project siteLogo set',
      "other INS Project 'Born themed' created",
    ]);
    const bad = await quire(t.deps, 'project', 'create', '--name', 'Not made', '--site-color', '#eeeeee');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/contrast ratio of 1\.\d\d:1/);
  });

  it('audits each change under hosting; a long one by its size and digest', async () => {
    const id = await newProject();
    const css = `.a{color:#123456}${' '.repeat(300)}`;
    const res = await quire(
      t.deps,
      'project',
      'update',
      id,
      '--host',
      'https://docs.example.com',
      '--base-path',
      '/help',
      '--site-color',
      '#1f5fbf',
      '--site-css',
      tempFile(css),
      '--redirects',
      tempFile('/a >> /b\n'),
      '--site-logo',
      '/logo.svg',
    );
    expect(res.code, res.stderr).toBe(0);
    const entries = (await auditEntries(t.deps, Number(id))).filter((e) => e.operation === 'UPD');
    const details = entries.map((e) => ({
      scope: e.scope,
      ...(JSON.parse(e.details) as { field: string; from: unknown; to: unknown; source: string }),
    }));
    expect(details.map((d) => [d.scope, d.field]).sort()).toEqual(
      [
        ['hosting', 'basePath'],
        ['hosting', 'host'],
        ['hosting', 'redirects'],
        ['hosting', 'siteColor'],
        ['hosting', 'siteCss'],
        ['hosting', 'siteLogo'],
      ].sort(),
    );
    expect(details.find((d) => d.field === 'siteColor')).toMatchObject({
      from: null,
      to: '#1f5fbf',
      source: 'cli',
    });
    expect(details.find((d) => d.field === 'redirects')).toMatchObject({ from: null, to: '/a >> /b\n' });
    expect(details.find((d) => d.field === 'siteCss')).toMatchObject({
      from: null,
      to: `317 bytes, sha256 ${createHash('sha256').update(css).digest('hex').slice(0, 16)}…`,
    });
    // The same values again change nothing, and nothing is audited.
    const before = (await auditEntries(t.deps, Number(id))).length;
    await quire(
      t.deps,
      'project',
      'update',
      id,
      '--site-color',
      '#1F5FBF',
      '--host',
      'https://docs.example.com/',
    );
    expect(await auditEntries(t.deps, Number(id))).toHaveLength(before);
  });
});

describe('the bin/quire executable', () => {
  it('refuses a setting with one line and exit code 1, never a stack trace', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-site-cli-'));
    const env = {
      ...process.env,
      DATABASE_URL: `sqlite:${path.join(dir, 'cli.db')}`,
      QUIRE_BOOTSTRAP: 'false',
    };
    try {
      const run = promisify(execFile);
      const bin = path.resolve('bin/quire');
      const made = await run(bin, ['project', 'create', '--name', 'Shell'], { cwd: dir, env });
      const id = String((JSON.parse(made.stdout) as { id: number }).id);
      const failed = await run(
        bin,
        ['project', 'update', id, '--redirects', tempFile('/a >> /b\n/c >> //evil.com\n')],
        {
          cwd: dir,
          env,
        },
      ).catch((e: { code: number; stdout: string; stderr: string }) => e);
      expect(failed).toMatchObject({ code: 1, stdout: '' });
      expect((failed as { stderr: string }).stderr).toBe(
        "quire: redirects line 2: the destination //evil.com is refused: it must not start with '//' (that names another host)\n",
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the theme on the site', () => {
  it('serves the brand colour and custom CSS as one hashed, immutable stylesheet linked from pages', async () => {
    const w = await createPublicSite(t.deps);
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
    const plain = await visit(t.app, `/sites/${w.project.id}/v1/guides/start`);
    expect(plain.body).not.toMatch(/_site\/project\./);
    const id = String(w.project.id);
    const set = await quire(
      t.deps,
      'project',
      'update',
      id,
      '--site-color',
      '#0b5e3a',
      '--site-css',
      tempFile('.brand{font-weight:700}'),
    );
    expect(set.code, set.stderr).toBe(0);

    const page = await visit(t.app, `/sites/${id}/v1/guides/start`);
    expect(page.statusCode).toBe(200);
    const links = [...page.body.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toHaveLength(2);
    const own = links[1] as string;
    expect(own).toMatch(new RegExp(`^/sites/${id}/_site/project\\.[A-Za-z0-9_-]{12}\\.css$`));
    // Never inlined: the page holds no style element and no style attribute with the brand.
    expect(page.body).not.toMatch(/<style|#0b5e3a|font-weight:700/);
    const landing = await visit(t.app, `/sites/${id}/`);
    expect(landing.body).toContain(`href="${own}"`);

    const sheet = await visit(t.app, own);
    expect(sheet.statusCode).toBe(200);
    expect(sheet.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(sheet.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(sheet.body).toBe(':root{--brand:#0b5e3a}\n.brand{font-weight:700}');

    // A new stylesheet shows at the next request, under a new name; the old name is gone.
    await quire(t.deps, 'project', 'update', id, '--site-css', tempFile('.brand{font-weight:400}'));
    const after = await visit(t.app, `/sites/${id}/v1/guides/start`);
    const renamed = [...after.body.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1])[1];
    expect(renamed).toMatch(/\/_site\/project\.[A-Za-z0-9_-]{12}\.css$/);
    expect(renamed).not.toBe(own);
    expect((await visit(t.app, renamed as string)).body).toContain('font-weight:400');
    expect((await visit(t.app, own)).statusCode).toBe(404);
  });

  it('shows the logo in the header, on a host of the project as under /sites', async () => {
    const w = await createPublicSite(t.deps);
    await sitePage(t.app, w.key, w.documentation.id, { title: 'Start', slug: 'start' });
    const logo = `data:image/png;base64,${PNG}`;
    const id = String(w.project.id);
    await quire(t.deps, 'project', 'update', id, '--site-logo', logo, '--host', 'https://docs.logo.test');
    for (const [url, host] of [
      [`/sites/${id}/v1/guides/start`, 'localhost'],
      ['/v1/guides/start', 'docs.logo.test'],
    ] as const) {
      const page = await visit(t.app, url, { host });
      expect(page.statusCode, url).toBe(200);
      const header = /<header class="site-header">([\s\S]*?)<\/header>/.exec(page.body)?.[1] ?? '';
      // An empty alt: the project's name follows it in the link.
      expect(header).toContain(`<img src="${logo}" alt width="32" height="32"/><span>`);
    }
  });
});

describe('the theme checks', () => {
  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#ffffff', '#ffffff')).toBeCloseTo(1, 5);
    // #767676 is the lightest grey that passes AA on white, as every contrast checker reports it.
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#1f5fbf', '#ffffff')).toBeCloseTo(6.09, 2);
  });

  it('takes a colour that keeps AA on every background it is used on, and names the ratio of one that does not', () => {
    expect(checkedColor('#1F5FBF')).toBe('#1f5fbf');
    // 4.54:1 on white, but 4.19:1 on the shaded navigation background.
    expect(() => checkedColor('#767676')).toThrow(/#767676 has a contrast ratio of 4.19:1 against #f4f6f8/);
    expect(() => checkedColor('#ffcc00')).toThrow(/contrast ratio of 1.\d\d:1 against #ffffff/);
    expect(() => checkedColor('blue')).toThrow(/#RRGGBB/);
  });

  it('finds every way a stylesheet could fetch from another site', () => {
    const external = [
      '@import url(https://fonts.example.com/a.css);',
      '@import "theme.css";',
      '@\\69mport "x.css";',
      'a { background: url(https://cdn.example.com/x.png) }',
      'a { background: url( "//cdn.example.com/x.png" ) }',
      'a { background: URL(\\68ttps://cdn.example.com/x.png) }',
      "a { background: image-set('https://cdn.example.com/x.png' 1x) }",
      'a { background: image-set("http:cdn.example.com" 1x) }',
      'a { background: url(\\\\\\\\cdn.example.com/x.png) }',
      '@font-face { src: url(ftp://x/font.woff2) }',
    ];
    for (const css of external) expect(externalReference(css), css).not.toBeNull();
    const own = [
      ':root { --brand: #123456 }',
      'a::before { content: "Note: see https:" }',
      '/* https://example.com/ and url(https://x) in a comment */ a { color: red }',
      'a { background: url(data:image/png;base64,AAAA) }',
      'a { background: url("/brand/bg.png") }',
      "p::after { content: 'don\\'t' }",
    ];
    for (const css of own) expect(externalReference(css), css).toBeNull();
  });
});
