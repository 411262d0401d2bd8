/**
 * What the site's browser tests share: finding and launching Debian's Chromium through
 * playwright-core, skipping (or, in CI, failing) when it is missing, a real app listening on a port
 * with the fixture project, the kinds of page every check visits, and axe-core.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describe, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/test-app.ts';
import {
  buildFixtureProject,
  siteRoot,
  type FixtureExtraKind,
  type FixtureProject,
  type FixtureShape,
} from './fixture-project.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // Every host but the test's own fails to resolve: a page that asked for anything elsewhere (a
  // font, a script) would show it as a failed request.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

export type ChromiumStatus =
  { state: 'present' } | { state: 'missing'; message: string } | { state: 'required'; message: string };

/**
 * Whether the browser tests can run. Without Chromium they are skipped, saying why; in CI (`CI` set,
 * as .ci/run is run) or with REQUIRE_BROWSER=1 a missing Chromium fails them instead, so that a
 * machine that lost its browser cannot pass by skipping.
 */
export function chromiumStatus(
  env: Readonly<Record<string, string | undefined>> = process.env,
  exists: (path: string) => boolean = fs.existsSync,
): ChromiumStatus {
  if (exists(CHROMIUM_PATH)) return { state: 'present' };
  const required =
    (env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0') ||
    env.REQUIRE_BROWSER === '1';
  const message = `${CHROMIUM_PATH} is missing (Debian's package: apt-get install chromium)`;
  return required
    ? { state: 'required', message: `the browser tests must run here, but ${message}` }
    : { state: 'missing', message: `the browser tests are skipped: ${message}` };
}

/**
 * `describe` for tests that drive Chromium: as it is when Chromium is there; skipped with the reason
 * in its name and on stderr when it is not; one failing test when it is not and must be.
 */
export function describeInBrowser(name: string, body: () => void): void {
  const status = chromiumStatus();
  if (status.state === 'present') {
    describe(name, body);
  } else if (status.state === 'missing') {
    process.stderr.write(`${name}: ${status.message}\n`);
    describe.skip(`${name} (skipped: ${status.message})`, body);
  } else {
    describe(name, () => {
      it('has Chromium to run in', () => {
        throw new Error(status.message);
      });
    });
  }
}

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });

/** A real app listening on a port of 127.0.0.1, with the fixture project, for a browser to visit. */
export interface ServedSite {
  app: TestApp;
  fixture: FixtureProject;
  /** `http://127.0.0.1:PORT/sites/ID`: the site's root as a browser addresses it */
  root: string;
  /** the site's root as a path: `/sites/ID` */
  rootPath: string;
  url(path: string): string;
  close(): Promise<void>;
}

/** A small project by default: the browser tests visit a few pages, the crawl visits them all. */
export async function serveFixtureSite(
  shape: FixtureShape = { sections: 3, pagesPerSection: 10, olderSections: 1 },
): Promise<ServedSite> {
  const app = await buildTestApp();
  const fixture = await buildFixtureProject(app.deps, shape);
  await app.app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the app is not listening');
  const rootPath = siteRoot(fixture);
  const root = `http://127.0.0.1:${address.port}${rootPath}`;
  return {
    app,
    fixture,
    root,
    rootPath,
    url: (path) => `${root}${path === '' ? '/' : path}`,
    close: () => app.close(),
  };
}

/** A kind of page the site serves: where the fixture has one, and the status it answers with. */
export interface PageKind {
  name: string;
  path: (fixture: FixtureProject) => string;
  status: number;
}

/** The address of something the fixture made besides pages (a changelog, a post, a reference). */
export function extraPath(fixture: FixtureProject, kind: FixtureExtraKind): string {
  const found = fixture.extra.find((e) => e.kind === kind);
  if (!found) throw new Error(`the fixture made no ${kind}`);
  return found.path;
}

/**
 * Every kind of page a public site serves, visited by the accessibility checks in both themes
 * (site.md §8). A private site's own pages (its login, the link-sent answer, the MCP connect page
 * of a signed-in reader) are checked by browser.a11y-private.test.ts.
 */
export const PAGE_KINDS: PageKind[] = [
  { name: 'landing', path: () => '/', status: 200 },
  { name: 'page', path: (fixture) => fixture.richPage.path, status: 200 },
  { name: 'search results', path: () => '/search?q=backups', status: 200 },
  { name: 'changelog', path: (fixture) => extraPath(fixture, 'changelog'), status: 200 },
  { name: 'changelog post', path: (fixture) => extraPath(fixture, 'post'), status: 200 },
  { name: 'reference', path: (fixture) => extraPath(fixture, 'reference'), status: 200 },
  { name: 'MCP connect', path: () => '/mcp/connect', status: 200 },
  { name: 'not found', path: () => '/v2/no-such-section/no-such-page', status: 404 },
];

/** What a page did that no page of the site should: errors, refused requests, policy violations. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy/.test(message.text())) {
      problems.push(`console: ${message.text()} (${message.location().url})`);
    }
  });
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? ''})`),
  );
  return problems;
}

const require = createRequire(import.meta.url);
let axeSource: string | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/**
 * axe-core's violations on the page as it is now, run from its own source (no network). Evaluated
 * through the driver rather than added as a script, so the site's policy (no inline script) stays.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    // Runs in the page: its globals, which the test's own types (Node's) do not describe.
    const scope = globalThis as unknown as {
      axe: { run: (context: unknown) => Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    const result = await scope.axe.run(scope.document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
}

/** Violations of impact serious or critical, as readable lines (site.md §8 allows none). */
export const seriousOnes = (violations: AxeViolation[]): string[] =>
  violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.impact ?? ''} ${v.id} (${v.help}): ${JSON.stringify(n.target)}`));
