/**
 * A realistic documentation project for the reader site: versions, sections with categories, nested
 * pages, code blocks, tables and links between pages, built through the services (no HTTP, no test
 * runner), so that the crawl test, the browser tests and the site benchmarks share one builder. What
 * it made is answered as a manifest of the addresses readers should find.
 */
import type { UseCaseContext } from '../../src/auth/actor.ts';
import type { Deps } from '../../src/deps.ts';
import { adminContext, createKey, createProject } from '../helpers/factories.ts';

export interface FixturePage {
  id: number;
  title: string;
  /** below the site's root: `/v2/guides/install` */
  path: string;
  sectionSlug: string;
  slug: string;
  listed: boolean;
}

export interface FixtureVersion {
  id: number;
  name: string;
  slug: string;
  /** published pages, listed or not, in the order they were made */
  pages: FixturePage[];
  /** pages with a draft only: readers never see them */
  drafts: FixturePage[];
}

export interface FixtureProject {
  projectId: number;
  name: string;
  key: string;
  /** published versions, the default first */
  versions: FixtureVersion[];
  /**
   * More addresses readers must find from the landing page, by kind: `reference`, `changelog`, `post`
   * (the newest post first).
   */
  extra: Array<{ kind: FixtureExtraKind; path: string }>;
  /** a listed page in a category, with a parent and a child (every page has code, a table, headings) */
  richPage: FixturePage;
  /** a page of the default version that the other version has too, at the same path */
  sharedPage: FixturePage;
}

export type FixtureExtraKind = 'reference' | 'changelog' | 'post';

export interface FixtureShape {
  /** sections of the default version (at most SECTION_TITLES.length) */
  sections?: number;
  /** published pages per section of the default version, roughly */
  pagesPerSection?: number;
  /** the older version's sections (at most `sections`); 0 makes no second version */
  olderSections?: number;
  projectName?: string;
  /** a published OpenAPI reference in the default version (default true) */
  reference?: boolean;
  /** a changelog with published posts, and a draft post readers never see (default true) */
  changelog?: boolean;
}

const SECTION_TITLES = [
  'Getting started',
  'Guides',
  'Concepts',
  'Operations',
  'Integrations',
  'Troubleshooting',
  'Security',
  'Reference notes',
];
const CATEGORY_TITLES = ['Basics', 'Working with data', 'Advanced'];
const TOPICS = [
  'Install',
  'Configure',
  'Deploy',
  'Backups',
  'Migrations',
  'Webhooks',
  'Search',
  'Access control',
  'Scaling',
  'Monitoring',
  'Logging',
  'Caching',
  'Imports',
  'Exports',
  'Versions',
  'Themes',
  'Redirects',
  'Feeds',
  'Tokens',
  'Queues',
];
/** Headings every page has, so links with fragments can name them across pages. */
export const FIXTURE_HEADINGS = ['Overview', 'Configuration', 'Examples', 'Limits'] as const;

const slugOf = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** A page's Darkdown: prose, headings, code in several languages, a table, a callout, links. */
function pageSource(title: string, n: number, links: Array<{ section: string; page: string }>): string {
  const linkLines = links.map(
    (link, i) =>
      `- [auto$](/${link.section}/${link.page}${i === 0 ? `#${slugOf(FIXTURE_HEADINGS[n % 4] ?? 'Overview')}` : ''})`,
  );
  const callout = {
    type: n % 3 === 0 ? 'warning' : 'info',
    title: n % 3 === 0 ? 'Before you start' : 'Note',
    text: `Read **${title}** in full before changing a production instance.`,
  };
  return [
    `${title} explains how Harbor handles ${title.toLowerCase()} on a running cluster, with the settings that matter and the commands an operator types. Page ${n} of the handbook.`,
    `## ${FIXTURE_HEADINGS[0]}`,
    `Harbor keeps its state in one database and answers over HTTP. This page covers the ${title.toLowerCase()} settings, what each changes, and how to check the result with \`harbor status\`.`,
    `$plugin[${JSON.stringify({ type: 'callout', data: callout })}]$`,
    `## ${FIXTURE_HEADINGS[1]}`,
    '| Setting | Default | Meaning |',
    '| --- | --- | --- |',
    `| \`HARBOR_${slugOf(title).replace(/-/g, '_').toUpperCase()}\` | \`on\` | Turns ${title.toLowerCase()} on |`,
    `| \`HARBOR_TIMEOUT\` | \`${(n % 9) + 1}s\` | How long a request may take |`,
    '| `HARBOR_WORKERS` | `4` | Threads that render pages |',
    '',
    `### Environment`,
    '```bash',
    `export HARBOR_TIMEOUT=${(n % 9) + 1}s`,
    `harbor serve --port ${8000 + (n % 100)} # starts the server`,
    '```',
    `### From code`,
    '```ts',
    `import { connect } from '@harbor/client';`,
    '',
    `const harbor = await connect({ url: 'http://localhost:${8000 + (n % 100)}', retries: ${n % 5} });`,
    `await harbor.settings.update({ ${slugOf(title).replace(/-./g, (m) => m.slice(1).toUpperCase())}: true });`,
    '```',
    `## ${FIXTURE_HEADINGS[2]}`,
    'A configuration file that sets the same values:',
    '```yaml',
    'harbor:',
    `  timeout: ${(n % 9) + 1}s`,
    '  workers: 4',
    '```',
    'Related pages:',
    '',
    ...linkLines,
    '',
    `## ${FIXTURE_HEADINGS[3]}`,
    `At most ${100 * ((n % 7) + 1)} requests per second per instance; beyond that, add instances behind the load balancer.`,
    '',
  ].join('\n');
}

interface PlannedPage {
  title: string;
  slug: string;
  category: string | null;
  /** index of the parent in the section's plan, or null */
  parent: number | null;
  listed: boolean;
  published: boolean;
}

/** The pages of one section: top-level pages, categories of pages, children and grandchildren. */
function planSection(count: number, sectionIndex: number): PlannedPage[] {
  const plan: PlannedPage[] = [];
  let topic = 0;
  const nextTitle = (): string => {
    const base = TOPICS[topic % TOPICS.length] ?? 'Topic';
    const round = Math.floor(topic / TOPICS.length);
    topic++;
    return round === 0 ? base : `${base} ${round + 1}`;
  };
  const add = (page: Omit<PlannedPage, 'slug'>): number => {
    plan.push({ ...page, slug: slugOf(page.title) });
    return plan.length - 1;
  };
  // Two pages before the categories, then the categories, each with nested pages.
  add({ title: nextTitle(), category: null, parent: null, listed: true, published: true });
  add({ title: nextTitle(), category: null, parent: null, listed: true, published: true });
  let c = 0;
  while (plan.length < count) {
    const category = CATEGORY_TITLES[c % CATEGORY_TITLES.length] ?? 'More';
    const title = c < CATEGORY_TITLES.length ? category : `${category} ${Math.floor(c / 3) + 1}`;
    c++;
    for (let i = 0; i < 4 && plan.length < count; i++) {
      const top = add({ title: nextTitle(), category: title, parent: null, listed: true, published: true });
      if (plan.length < count) {
        const child = add({ title: nextTitle(), category: null, parent: top, listed: true, published: true });
        if (plan.length < count && i % 2 === 0) {
          add({ title: nextTitle(), category: null, parent: child, listed: true, published: true });
        }
      }
    }
  }
  // One unlisted page (readable at its address, in no navigation) and one draft per section.
  add({
    title: `Unlisted notes ${sectionIndex + 1}`,
    category: null,
    parent: null,
    listed: false,
    published: true,
  });
  add({
    title: `Draft ideas ${sectionIndex + 1}`,
    category: null,
    parent: null,
    listed: true,
    published: false,
  });
  return plan;
}

/**
 * Builds the project: a public project with a default version of `sections` sections of about
 * `pagesPerSection` pages each, and an older version holding the first `olderSections` sections with
 * the same first pages (so the version switcher has the same page to go to for some pages, and not
 * for others), plus an unpublished section readers must never see.
 */
export async function buildFixtureProject(deps: Deps, shape: FixtureShape = {}): Promise<FixtureProject> {
  const sections = Math.min(shape.sections ?? 6, SECTION_TITLES.length);
  const perSection = shape.pagesPerSection ?? 50;
  const olderSections = Math.min(shape.olderSections ?? 2, sections);
  const name = shape.projectName ?? 'Harbor';
  const project = await createProject(deps, { name, plan: 'enterprise', access: 'public' });
  const { key } = await createKey(deps, project.id);
  const ctx = await adminContext(deps, { projectId: project.id });

  const versions: FixtureVersion[] = [];
  const specs = [{ name: '2.0', slug: 'v2', sections, perSection }];
  if (olderSections > 0) {
    specs.push({ name: '1.0', slug: 'v1', sections: olderSections, perSection: Math.ceil(perSection / 2) });
  }
  let n = 0;
  for (const spec of specs) {
    const version = await deps.versions.create(ctx, { name: spec.name, slug: spec.slug, published: true });
    const made: FixtureVersion = { id: version.id, name: spec.name, slug: spec.slug, pages: [], drafts: [] };
    const plans = Array.from({ length: spec.sections }, (_, s) => ({
      title: SECTION_TITLES[s] ?? `Section ${s + 1}`,
      pages: planSection(spec.perSection, s),
    }));
    const listedTargets = plans.flatMap((section) =>
      section.pages
        .filter((p) => p.listed && p.published)
        .map((p) => ({ section: slugOf(section.title), page: p.slug })),
    );
    const fillSection = async (
      documentationId: number,
      sectionSlug: string,
      planned: PlannedPage[],
      first: number,
    ): Promise<Pick<FixtureVersion, 'pages' | 'drafts'>> => {
      const made: Pick<FixtureVersion, 'pages' | 'drafts'> = { pages: [], drafts: [] };
      const ids: number[] = [];
      const categories = new Set<string>();
      for (const [i, plan] of planned.entries()) {
        const n = first + i + 1;
        if (plan.category !== null && !categories.has(plan.category)) {
          await deps.documentation.createCategory(ctx, documentationId, plan.category);
          categories.add(plan.category);
        }
        // Links to further pages of the version, the first one with a fragment.
        const links = [1, 7, 31].map(
          (step) =>
            listedTargets[(n + step) % listedTargets.length] ?? { section: sectionSlug, page: plan.slug },
        );
        const parentId = plan.parent === null ? null : (ids[plan.parent] ?? null);
        const created = await deps.pages.create(
          ctx,
          documentationId,
          {
            title: plan.title,
            slug: plan.slug,
            content: pageSource(plan.title, n, links),
            ...(plan.category !== null ? { categoryTitle: plan.category } : {}),
          },
          parentId === null ? {} : { parentId, categoryId: null },
        );
        ids.push(created.id);
        const page: FixturePage = {
          id: created.id,
          title: plan.title,
          path: `/${spec.slug}/${sectionSlug}/${plan.slug}`,
          sectionSlug,
          slug: plan.slug,
          listed: plan.listed,
        };
        if (!plan.published) {
          made.drafts.push(page);
          continue;
        }
        await deps.pages.publish(ctx, created.id);
        if (!plan.listed) await deps.pages.update(ctx, created.id, { listed: false });
        made.pages.push(page);
      }
      return made;
    };
    // Sections are made in order; their pages section by section at once (on PostgreSQL the
    // transactions then run side by side), each section's pages in order.
    const documentations: number[] = [];
    for (const section of plans) {
      const documentation = await deps.documentation.create(ctx, version.id, {
        title: section.title,
        slug: slugOf(section.title),
        published: true,
      });
      documentations.push(documentation.id);
    }
    let start = n;
    const filled = await Promise.all(
      plans.map((section, s) => {
        const first = start;
        start += section.pages.length;
        return fillSection(documentations[s] ?? 0, slugOf(section.title), section.pages, first);
      }),
    );
    n = start;
    for (const section of filled) {
      made.pages.push(...section.pages);
      made.drafts.push(...section.drafts);
    }
    const hidden = await deps.documentation.create(ctx, version.id, {
      title: 'Internal',
      slug: 'internal',
      published: false,
    });
    const secret = await deps.pages.create(ctx, hidden.id, { title: 'Secret', content: 'Not for readers.' });
    await deps.pages.publish(ctx, secret.id);
    versions.push(made);
  }

  const first = versions[0];
  if (!first) throw new Error('the fixture has no version');
  // The child of the first category's first page, with a child of its own (see planSection).
  const richPage = first.pages[3];
  const sharedPage = first.pages[0];
  if (!richPage || !sharedPage) throw new Error('the fixture made too few pages');
  const extra: FixtureProject['extra'] = [];
  if (shape.reference ?? true) {
    const reference = await deps.references.upload(ctx, {
      versionId: first.id,
      publish: true,
      readFile: () => Promise.resolve(Buffer.from(referenceDefinition(name))),
    });
    extra.push({ kind: 'reference', path: `/${first.slug}/ref/${reference.slug}` });
  }
  if (shape.changelog ?? true) extra.push(...(await writeChangelog(deps, ctx, richPage)));
  return { projectId: project.id, name, key, versions, extra, richPage, sharedPage };
}

/**
 * A changelog of release notes: published posts with headings, lists, code and a link into the
 * documentation, and a draft. Its addresses: the changelog, then its posts, newest first.
 */
async function writeChangelog(
  deps: Deps,
  ctx: UseCaseContext,
  linked: FixturePage,
): Promise<FixtureProject['extra']> {
  const changelog = await deps.changelogs.create(ctx, { title: 'Release notes', slug: 'releases' });
  const base = `/changelog/${changelog.slug}`;
  const posts: FixtureProject['extra'] = [];
  for (const release of ['2.0.0', '2.1.0', '2.2.0']) {
    const [major, minor] = release.split('.');
    const post = await deps.changelogs.createPost(ctx, changelog.id, {
      title: `Harbor ${release}`,
      slug: `harbor-${release.replace(/\./g, '-')}`,
      published: true,
      content: [
        `Harbor ${release} is out: faster restarts, clearer errors, and one setting renamed.`,
        '## New',
        `- \`harbor status --json\` prints the cluster's state for scripts.`,
        `- Workers restart one at a time, so a restart of ${major}.${minor} drops no request.`,
        '## Changed',
        `\`HARBOR_TIMEOUT\` now takes a unit. See [${linked.title}](/${linked.sectionSlug}/${linked.slug}) for the settings.`,
        '```bash',
        'export HARBOR_TIMEOUT=30s',
        '```',
        '',
      ].join('\n'),
    });
    // Each post is newer than the one before; the list and the feed show the newest first.
    posts.unshift({ kind: 'post', path: `${base}/${post.slug}` });
  }
  await deps.changelogs.createPost(ctx, changelog.id, {
    title: 'Harbor 3.0.0 (draft)',
    content: 'Not yet.',
    published: false,
  });
  return [{ kind: 'changelog', path: base }, ...posts];
}

/** An OpenAPI 3 document of a small API: tags, parameters, a request body, shared schemas, enums. */
function referenceDefinition(name: string): string {
  const error = { $ref: '#/components/responses/Error' };
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: `${name} API`, version: '2.0.0', description: `Manage ${name} clusters over HTTP.` },
    servers: [{ url: 'https://harbor.example.com/api' }],
    tags: [
      { name: 'Clusters', description: 'The clusters an account runs.' },
      { name: 'Backups', description: 'Backups of a cluster, and restoring them.' },
    ],
    paths: {
      '/clusters': {
        get: {
          tags: ['Clusters'],
          operationId: 'listClusters',
          summary: 'List clusters',
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } }],
          responses: {
            '200': {
              description: 'The clusters',
              content: {
                'application/json': {
                  schema: { type: 'array', items: { $ref: '#/components/schemas/Cluster' } },
                },
              },
            },
            default: error,
          },
        },
        post: {
          tags: ['Clusters'],
          operationId: 'createCluster',
          summary: 'Create a cluster',
          description: 'Starts a cluster of **one** instance; add instances later.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ClusterInput' } } },
          },
          responses: {
            '201': {
              description: 'The new cluster',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Cluster' } } },
            },
            default: error,
          },
        },
      },
      '/clusters/{id}/backups': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        post: {
          tags: ['Backups'],
          operationId: 'createBackup',
          summary: 'Back up a cluster',
          responses: {
            '202': {
              description: 'The backup, started',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Backup' } } },
            },
            default: error,
          },
        },
      },
    },
    components: {
      schemas: {
        ClusterInput: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', example: 'production' },
            region: { type: 'string', enum: ['eu-west', 'us-east'] },
          },
        },
        Cluster: {
          allOf: [
            { $ref: '#/components/schemas/ClusterInput' },
            {
              type: 'object',
              properties: {
                id: { type: 'string' },
                state: { type: 'string', enum: ['starting', 'running', 'stopped'] },
              },
            },
          ],
        },
        Backup: {
          type: 'object',
          properties: { id: { type: 'string' }, cluster: { $ref: '#/components/schemas/Cluster' } },
        },
        Error: { type: 'object', properties: { message: { type: 'string' } } },
      },
      responses: {
        Error: {
          description: 'What went wrong',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  });
}

/** The site's root of the fixture's project on any host. */
export const siteRoot = (fixture: Pick<FixtureProject, 'projectId'>): string => `/sites/${fixture.projectId}`;
