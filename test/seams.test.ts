import SQLite from 'better-sqlite3';
import { sql, type Transaction } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { CLI_ACTOR, systemActor, type UseCaseContext } from '../src/auth/actor.ts';
import type { Database } from '../src/db/schema.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { TransactionGroups } from '../src/db/transaction-groups.ts';
import type { ChangeType } from '../src/modules/changes/change-events.ts';
import { adminContext, auditEntries, createWorld } from './helpers/factories.ts';
import { client, dialectName, useTestApp } from './helpers/test-app.ts';

const t = useTestApp();

/** Every page title of the project, through the API. */
async function pageTitles(key: string): Promise<string[]> {
  const res = await client(t.app, key).get('/all');
  expect(res.statusCode).toBe(200);
  return Object.values(res.json().page as Record<string, { title: string }>)
    .map((p) => p.title)
    .sort();
}

describe('composable transactions', () => {
  it('runs several use cases atomically: when a later one fails, nothing of the earlier ones remains', async () => {
    const w = await createWorld(t.deps);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    const auditBefore = (await auditEntries(t.deps, w.project.id)).length;
    const attempt = inTransaction(t.deps.database.db, ctx, async (tx) => {
      await t.deps.pages.create(tx, w.documentation.id, { title: 'First', content: 'one' });
      await t.deps.versions.create(tx, { name: 'Second', published: true });
      // The third fails: an unknown section.
      await t.deps.pages.create(tx, 999_999, { title: 'Third', content: 'three' });
    });
    await expect(attempt).rejects.toMatchObject({ status: 404 });
    expect(await pageTitles(w.key)).toEqual([]);
    const versions = await client(t.app, w.key).get('/version');
    expect(versions.json().map((v: { name: string }) => v.name)).toEqual(['v1']);
    expect(await auditEntries(t.deps, w.project.id)).toHaveLength(auditBefore);
  });

  it('commits use cases run together, each with its change recorded, and one failure caught inside stays undone alone', async () => {
    const w = await createWorld(t.deps);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    await inTransaction(t.deps.database.db, ctx, async (tx) => {
      const page = await t.deps.pages.create(tx, w.documentation.id, { title: 'Kept', content: 'x' });
      await t.deps.pages.publish(tx, page.id);
      // A use case that fails inside the unit undoes only its own writes (its savepoint).
      await expect(
        t.deps.pages.create(tx, w.documentation.id, { title: 'Clash', slug: page.slug, content: 'y' }),
      ).rejects.toMatchObject({ status: 409 });
      await t.deps.pages.create(tx, w.documentation.id, { title: 'Also kept', content: 'z' });
    });
    expect(await pageTitles(w.key)).toEqual(['Also kept', 'Kept']);
    const messages = (await auditEntries(t.deps, w.project.id)).map((e) => e.message);
    expect(messages.slice(0, 3)).toEqual([
      "Page 'Also kept' created",
      "Page 'Kept' published",
      "Page 'Kept' created",
    ]);
  });

  it('serves reads inside the transaction from what it wrote so far', async () => {
    const w = await createWorld(t.deps);
    const ctx = await adminContext(t.deps, { projectId: w.project.id });
    const seen = await inTransaction(t.deps.database.db, ctx, async (tx) => {
      const page = await t.deps.pages.create(tx, w.documentation.id, { title: 'Fresh', content: '# Hi' });
      return JSON.parse(String((await t.deps.pages.getJson(tx, page.id, 'html')).body)) as {
        contentDraft: string;
      };
    });
    expect(seen.contentDraft).toContain('Hi</h1>');
  });
});

describe('grouped transactions', () => {
  /** A table of its own, with a reference checked at commit: a write to it can fail as it commits. */
  async function probe(name: string): Promise<void> {
    const db = t.deps.database.db;
    await sql`create table ${sql.id(`${name}_parent`)} (id integer primary key)`.execute(db);
    await sql`create table ${sql.id(name)} (id integer primary key, parent integer
      references ${sql.id(`${name}_parent`)} (id) deferrable initially deferred)`.execute(db);
  }
  const rows = async (name: string) =>
    (
      await sql<{ id: number }>`select id from ${sql.id(name)} order by id`.execute(t.deps.database.db)
    ).rows.map((r) => Number(r.id));

  const actor = { actor: CLI_ACTOR };

  /** Writes queued behind one that waits, so that they run as one group once it is let go. */
  function queuedBehind(groups: TransactionGroups<string>) {
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = groups.run('k', actor, async () => {
      await gate;
      return 0;
    });
    return { first, release };
  }

  /**
   * Writes 1…count sent together behind a held one, each running `work` with its number: how each
   * settled (its number, or its error's message), and every run of their work with whether it was
   * the first of its transaction.
   */
  async function group(count: number, work: (trx: Transaction<Database>, n: number) => Promise<void>) {
    const groups = new TransactionGroups<string>(t.deps.database.db);
    const { first, release } = queuedBehind(groups);
    const turns: Array<[number, boolean]> = [];
    const writes = Array.from({ length: count }, (_, i) =>
      groups.run('k', actor, async (tx, firstOfTransaction) => {
        turns.push([i + 1, firstOfTransaction]);
        await work(tx.transaction, i + 1);
        return i + 1;
      }),
    );
    release();
    expect(await first).toBe(0);
    const settled = (await Promise.allSettled(writes)).map((r) =>
      r.status === 'fulfilled' ? r.value : (r.reason as Error).message,
    );
    return { settled, turns };
  }

  it('answers each write of a group for itself: one that fails fails alone, the others are written once', async () => {
    await probe('grouped_alone');
    const { settled, turns } = await group(4, async (trx, n) => {
      await sql`insert into grouped_alone (id) values (${n})`.execute(trx);
      if (n === 3) throw new Error('the third fails');
    });
    expect(settled).toEqual([1, 2, 'the third fails', 4]);
    // Together first; the third's failure undid the group: the others together again, then the
    // third alone.
    expect(turns).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [1, true],
      [2, false],
      [4, false],
      [3, true],
    ]);
    expect(await rows('grouped_alone')).toEqual([1, 2, 4]);
  });

  it('fails every write of a group at once when the database cannot answer, and runs none again', async () => {
    await probe('grouped_down');
    const { settled, turns } = await group(3, async (trx, n) => {
      await sql`insert into grouped_down (id) values (${n})`.execute(trx);
      // What node-postgres reports for a connection that broke.
      if (n === 2)
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    });
    expect(settled).toEqual(Array.from({ length: 3 }, () => 'Connection terminated unexpectedly'));
    expect(turns).toHaveLength(2);
    expect(await rows('grouped_down')).toEqual([]);
  });

  it('refuses with a 503 a write that waited too long for its group, and runs the others', async () => {
    await probe('grouped_wait');
    const groups = new TransactionGroups<string>(t.deps.database.db, 50);
    const { first, release } = queuedBehind(groups);
    const late = groups.run('k', actor, async (tx) => {
      await sql`insert into grouped_wait (id) values (1)`.execute(tx.transaction);
      return 1;
    });
    await new Promise((resolve) => setTimeout(resolve, 120));
    const fresh = groups.run('k', actor, async (tx) => {
      await sql`insert into grouped_wait (id) values (2)`.execute(tx.transaction);
      return 2;
    });
    release();
    await first;
    await expect(late).rejects.toMatchObject({ status: 503, retryAfterSeconds: 2 });
    await expect(fresh).resolves.toBe(2);
    expect(await rows('grouped_wait')).toEqual([2]);

    // Without a bound (SQLite's writes), a write waits for its group however long that takes.
    const patient = new TransactionGroups<string>(t.deps.database.db);
    const held = queuedBehind(patient);
    const waited = patient.run('k', actor, async (tx) => {
      await sql`insert into grouped_wait (id) values (3)`.execute(tx.transaction);
      return 3;
    });
    await new Promise((resolve) => setTimeout(resolve, 120));
    held.release();
    await held.first;
    await expect(waited).resolves.toBe(3);
  });

  it('fails every write of a group whose commit fails, and writes none of them again', async () => {
    await probe('grouped_commit');
    const { settled, turns } = await group(3, async (trx, n) => {
      // Parent 99 does not exist: the reference is checked when the transaction commits.
      await sql`insert into grouped_commit (id, parent) values (${n}, 99)`.execute(trx);
    });
    expect(settled.every((r) => typeof r === 'string')).toBe(true);
    expect(turns).toHaveLength(3);
    expect(await rows('grouped_commit')).toEqual([]);
  });
});

describe('actors', () => {
  it('lets the system act without a key, and names it in the audit log', async () => {
    const w = await createWorld(t.deps);
    const ctx: UseCaseContext = {
      ...(await adminContext(t.deps, { projectId: w.project.id })),
      actor: systemActor('import'),
    };
    const page = await t.deps.pages.create(ctx, w.documentation.id, { title: 'Imported', content: 'x' });
    const [entry] = await auditEntries(t.deps, w.project.id);
    expect(entry).toMatchObject({ entity: 'page', entity_id: String(page.id), api_key_label: null });
    expect(JSON.parse(entry!.details)).toMatchObject({ source: 'system', job: 'import' });
  });

  it('keeps a key within its version scope whatever the use case', async () => {
    const w = await createWorld(t.deps);
    const scoped: UseCaseContext = {
      scope: { project: w.project, versions: new Set([w.version.id + 1000]) },
      actor: CLI_ACTOR,
      ipAddress: null,
    };
    await expect(
      t.deps.pages.create(scoped, w.documentation.id, { title: 'Nope', content: 'x' }),
    ).rejects.toMatchObject({ status: 403 });
  });
});

describe('change events', () => {
  it('hands every subscriber one typed event per change, inside the change’s transaction', async () => {
    const w = await createWorld(t.deps);
    const seen: ChangeType[] = [];
    let failOn: ChangeType | null = null;
    t.deps.changes.subscribe(async (trx, { event }) => {
      seen.push(event.type);
      // Inside the transaction: what the change wrote is visible here.
      if (event.type === 'page.created') {
        const row = await trx
          .selectFrom('pages')
          .select('title')
          .where('id', '=', event.page.id)
          .executeTakeFirst();
        expect(row?.title).toBe(event.page.title);
      }
      if (event.type === failOn) throw new Error('subscriber failed');
    });
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, { title: 'A', content: 'a' });
    const id = created.json().id as number;
    await api.put(`/page/${id}`, { content: 'b' });
    await api.put(`/page/${id}/publish`);
    await api.put(`/version/${w.version.id}`, { name: 'v1 renamed' });
    await api.post('/reader-access', { email: 'reader@example.com' });
    await api.patch('/reader-access', { email: 'reader@example.com' });
    expect(seen).toEqual([
      'page.created',
      'page.updated',
      'page.published',
      'version.updated',
      'reader_access.granted',
      'reader_access.revoked',
    ]);

    // A subscriber that fails takes the change with it: nothing is half recorded.
    failOn = 'page.created';
    const failed = await api.post(`/documentation/${w.documentation.id}/page`, { title: 'B', content: 'b' });
    expect(failed.statusCode).toBe(500);
    expect(await pageTitles(w.key)).toEqual(['A']);
    const messages = (await auditEntries(t.deps, w.project.id)).map((e) => e.message);
    expect(messages).not.toContain("Page 'B' created");
  });
});

describe('the read connection', () => {
  it('lets writes commit during a long read, which keeps reading one consistent state', async () => {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    await api.post(`/documentation/${w.documentation.id}/page`, { title: 'Before', content: 'x' });
    const count = async (db: typeof t.deps.database.reader) =>
      Number(
        (
          await db
            .selectFrom('pages')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const during = await t.deps.database.reader
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const first = await count(trx);
        // The write goes through the API while the read is open, and commits at once.
        const res = await api.post(`/documentation/${w.documentation.id}/page`, {
          title: 'During',
          content: 'y',
        });
        expect(res.statusCode).toBe(200);
        return { first, second: await count(trx) };
      });
    expect(during).toEqual({ first: 1, second: 1 });
    expect(await count(t.deps.database.reader)).toBe(2);
    expect(await pageTitles(w.key)).toEqual(['Before', 'During']);
  });

  it('reads through a connection that cannot write (SQLite) or through the pool (PostgreSQL)', () => {
    const { reader, readerSqlite, sqlite, db } = t.deps.database;
    if (dialectName === 'postgres') {
      expect(reader).toBe(db);
      expect(readerSqlite).toBeNull();
      return;
    }
    expect(readerSqlite).not.toBe(sqlite);
    expect(readerSqlite?.readonly).toBe(true);
    expect(() => readerSqlite?.prepare('delete from pages').run()).toThrow(/readonly/);
  });
});

describe('the page answer cache', () => {
  async function cachedPage() {
    const w = await createWorld(t.deps);
    const api = client(t.app, w.key);
    const created = await api.post(`/documentation/${w.documentation.id}/page`, {
      title: 'Cached',
      content: 'Old words.',
    });
    const id = created.json().id as number;
    // Twice: the second read is served from the cache.
    for (let i = 0; i < 2; i++) {
      expect((await api.get(`/page/${id}?format=html`)).json().contentDraft).toBe('<p>Old words.</p>\n');
    }
    return { api, id };
  }

  it('never serves an answer older than a raw SQL write on the database', async () => {
    const { api, id } = await cachedPage();
    if (t.deps.database.sqlite) {
      t.deps.database.sqlite.prepare('update pages set content_draft = ? where id = ?').run('New words.', id);
    } else {
      await sql`update pages set content_draft = ${'New words.'} where id = ${id}`.execute(
        t.deps.database.db,
      );
    }
    expect((await api.get(`/page/${id}?format=html`)).json().contentDraft).toBe('<p>New words.</p>\n');
    expect((await api.get(`/page/${id}`)).json().contentDraft).toBe('New words.');
  });

  it('sees a commit by another connection (another instance) within a millisecond', async () => {
    const { api, id } = await cachedPage();
    await renameElsewhere(id, 'Renamed elsewhere');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await api.get(`/page/${id}`)).json().title).toBe('Renamed elsewhere');
  });
});

/** A write through a connection of its own, as another instance over the same database makes it. */
async function renameElsewhere(id: number, title: string): Promise<void> {
  if (dialectName === 'sqlite') {
    const other = new SQLite(t.storage.databaseUrl.slice('sqlite:'.length));
    try {
      other.prepare('update pages set title = ? where id = ?').run(title, id);
    } finally {
      other.close();
    }
    return;
  }
  const other = new pg.Client({
    connectionString: t.storage.databaseUrl,
    options: `-c search_path=${t.storage.schema ?? 'public'}`,
  });
  await other.connect();
  try {
    await other.query('update pages set title = $1 where id = $2', [title, id]);
  } finally {
    await other.end();
  }
}
