import { RawNode, type KyselyPlugin, type OperationNode, type QueryId } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { checkAnswers } from './helpers/answer-check.ts';
import { idRanges } from '../src/modules/all/all.parts.ts';
import type { PageIdRange } from '../src/modules/all/all.repository.ts';
import { AllService, type AllOptions } from '../src/modules/all/all.service.ts';
import { createDocumentation, createVersion, createWorld, insertPageRow } from './helpers/factories.ts';
import { client, dialectName, useTestApp } from './helpers/test-app.ts';

// On PostgreSQL, a big listing's pages are written in id ranges by several connections in one
// snapshot and streamed (src/modules/all/all.parts.ts). These tables are small: the services here
// split whatever the table's size.

const t = useTestApp();

const insertPage = (documentationId: number, input: Parameters<typeof insertPageRow>[2] = {}) =>
  insertPageRow(t.deps, documentationId, input);

/** An app whose /all is answered by a service with these options (over the test's database). */
async function appWith(options: AllOptions, plugins: KyselyPlugin[] = []) {
  let db = t.deps.database.db;
  for (const plugin of plugins) db = db.withPlugin(plugin);
  return buildApp(
    { ...t.deps, all: new AllService(db, t.deps.versions, options) },
    {
      logger: false,
      instrument: checkAnswers(),
    },
  );
}

const importsSnapshot = (node: OperationNode) =>
  RawNode.is(node) && node.sqlFragments.join('?').includes('set transaction snapshot');

/**
 * Pages in two versions and three sections, ids alternating between sections; titles and slugs
 * with quotes and backslashes, control characters, characters beyond ASCII.
 */
async function project() {
  const w = await createWorld(t.deps);
  const draft = await createVersion(t.deps, w.project.id, { name: 'Next', slug: 'next', published: false });
  const sections = [
    w.documentation,
    await createDocumentation(t.deps, w.version.id, {
      title: 'Other "one"',
      slug: 'other',
      published: false,
    }),
    await createDocumentation(t.deps, draft.id, { title: 'API', slug: 'api' }),
  ];
  const titles = ['Quotes " and \\ backslash', 'Line\nbreak\tand \u0001', 'Emoji 🦭 and \u2028', 'Plain'];
  for (let i = 0; i < 30; i++) {
    const section = sections[i % sections.length]!;
    await insertPage(section.id, {
      title: titles[i % titles.length],
      ...(i % 5 === 2 ? { slug: `say-"hi"\\-${i}` } : {}),
      listed: i % 4 !== 1,
      deleted: i % 7 === 3,
    });
  }
  return w;
}

describe('GET /all in id ranges', () => {
  it('divides any span into ranges that cover every id once', () => {
    const covers = (ranges: PageIdRange[], id: number) =>
      ranges.filter((r) => (r.from === null || id >= r.from) && (r.below === null || id < r.below)).length;
    for (const [first, last, count] of [
      [1, 100_000, 8],
      [7, 9, 5],
      [1, 1, 2],
      [500, 20_499, 3],
    ] as const) {
      const ranges = idRanges(first, last, count);
      expect(ranges).toHaveLength(count);
      expect(ranges[0]?.from).toBeNull();
      expect(ranges.at(-1)?.below).toBeNull();
      for (let id = first - 2; id <= last + 2; id += Math.max(1, Math.floor((last - first) / 997))) {
        expect(covers(ranges, id)).toBe(1);
      }
    }
  });

  it('writes the text of one query, byte for byte, with the same tag, for every query', async () => {
    const w = await project();
    const one = await appWith({ connections: 1 });
    const splits = await Promise.all([
      appWith({ splitFrom: 1, connections: 2, ranges: 5 }),
      appWith({ splitFrom: 1, connections: 3, ranges: 3 }),
      // More ranges than pages: most are empty.
      appWith({ splitFrom: 1, connections: 2, ranges: 64 }),
    ]);
    try {
      for (const query of ['', '?published=true', '?versionId=latest', `?versionId=${w.version.id}`]) {
        const expected = await client(one, w.key).get(`/all${query}`);
        expect(expected.statusCode).toBe(200);
        expect(expected.body).toBe(JSON.stringify(expected.json()));
        for (const app of splits) {
          const res = await client(app, w.key).get(`/all${query}`);
          expect(res.statusCode).toBe(200);
          expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
          expect(res.headers.etag).toBe(expected.headers.etag);
          expect(res.body).toBe(expected.body);
          // Streamed on PostgreSQL: sent as it is written, without a length.
          expect(res.headers['content-length'] === undefined).toBe(dialectName === 'postgres');
        }
      }
    } finally {
      await Promise.all([one, ...splits].map((app) => app.close()));
    }
  });

  it.runIf(dialectName === 'postgres')(
    'reads every range in the one snapshot: what commits meanwhile is in none of them',
    async () => {
      const w = await project();
      const first = await insertPage(w.documentation.id, { title: 'Before' });
      const imports = new Set<QueryId>();
      let writes = 0;
      // Once a second connection has taken up the snapshot, and before it reads its ranges, another
      // connection changes a page and adds one, and commits.
      const meanwhile: KyselyPlugin = {
        transformQuery: (args) => {
          if (importsSnapshot(args.node)) imports.add(args.queryId);
          return args.node;
        },
        transformResult: async (args) => {
          if (imports.delete(args.queryId)) {
            writes++;
            await t.deps.database.db
              .updateTable('pages')
              .set({ title: 'After' })
              .where('id', '=', first)
              .execute();
            await insertPage(w.documentation.id, { title: 'Added' });
          }
          return args.result;
        },
      };
      const before = (await client(t.app, w.key).get('/all')).body;
      const app = await appWith({ splitFrom: 1, connections: 2, ranges: 4 }, [meanwhile]);
      try {
        const res = await client(app, w.key).get('/all');
        expect(writes).toBe(1);
        expect(res.statusCode).toBe(200);
        expect(res.body).toBe(before);
        const after = (await client(t.app, w.key).get('/all')).body;
        expect(after).toContain('"title":"After"');
        expect(after).toContain('"title":"Added"');
      } finally {
        await app.close();
      }
    },
  );

  it.runIf(dialectName === 'postgres')(
    'answers an error, not a cut-short text, when a connection fails before the first part',
    async () => {
      const w = await project();
      // The second connection cannot take up the snapshot.
      const broken: KyselyPlugin = {
        transformResult: (args) => Promise.resolve(args.result),
        transformQuery: (args) => {
          if (importsSnapshot(args.node)) throw new Error('no connection');
          return args.node;
        },
      };
      const app = await appWith({ splitFrom: 1, connections: 2, ranges: 4 }, [broken]);
      try {
        const res = await client(app, w.key).get('/all');
        expect(res.statusCode).toBe(500);
        expect(res.json<{ error: { httpCode: number } }>().error.httpCode).toBe(500);
        // The tag names an answer that was not given.
        expect(res.headers.etag).toBeUndefined();
      } finally {
        await app.close();
      }
    },
  );

  it.runIf(dialectName === 'postgres')(
    'cuts the text short when a range fails once it is being sent',
    async () => {
      const w = await project();
      let ranges = 0;
      const failing = new Set<QueryId>();
      // The page ranges are the only queries that name `members`: the first two are written, the
      // next fail, a while after the first ones were sent.
      const broken: KyselyPlugin = {
        transformQuery: (args) => {
          if (JSON.stringify(args.node).includes('"members"') && ++ranges > 2) failing.add(args.queryId);
          return args.node;
        },
        transformResult: async (args) => {
          if (!failing.has(args.queryId)) return args.result;
          await new Promise((resolve) => setTimeout(resolve, 200));
          throw new Error('lost');
        },
      };
      const app = await appWith({ splitFrom: 1, connections: 2, ranges: 4 }, [broken]);
      try {
        // Over a real connection: once the answer's head is sent, a failure can only cut it short.
        await app.listen({ host: '127.0.0.1', port: 0 });
        const address = app.server.address();
        const port = typeof address === 'object' && address !== null ? address.port : 0;
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/all`, { headers: { 'x-api-key': w.key } });
        expect(res.status).toBe(200);
        await expect(res.text()).rejects.toThrow();
      } finally {
        await app.close();
      }
    },
  );
});
