import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import { CompiledRead } from '../../db/prepared.ts';
import type { PageHistoryTable } from '../../db/schema.ts';
import { HEAD_BYTES } from './history-packing.ts';

/** See historyRepository.newest: compiled once, run at every write of a page. */
const newestRevision = new CompiledRead(1, (db, pageId: number) =>
  db
    .selectFrom('page_history')
    .select(['id', sql<Uint8Array | null>`substr(contents, 1, ${HEAD_BYTES})`.as('head')])
    .where('page_id', '=', pageId)
    .orderBy('id', 'desc')
    .limit(1),
);

/** The statements of page history: revisions written with each change, read by the history API. */
export const historyRepository = {
  /** The insert of a history row, unsent: the change queues it with its other writes. */
  insertion(db: Executor, values: Insertable<PageHistoryTable>) {
    return db.insertInto('page_history').values(values);
  },

  /** The page's newest revision: its id and the head of its packed contents (null on older rows). */
  newest(db: Executor, pageId: number): Promise<{ id: number; head: Uint8Array | null } | undefined> {
    return newestRevision.first(db, pageId);
  },

  /** How many revisions a page has, or has up to (and with) one of them. */
  async countRevisions(db: Executor, pageId: number, upToId?: number): Promise<number> {
    let query = db
      .selectFrom('page_history')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('page_id', '=', pageId);
    if (upToId !== undefined) query = query.where('id', '<=', upToId);
    const row = await query.executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  /** Revisions of a page, newest first, before a revision's id; with the user whose key made each. */
  revisions(db: Executor, pageId: number, beforeId: number | null, limit: number) {
    let query = db
      .selectFrom('page_history as h')
      .leftJoin('users as u', 'u.id', 'h.user_id')
      .select([
        'h.id',
        'h.operation',
        'h.message',
        'h.title',
        'h.slug',
        'h.created',
        'u.id as user_id',
        'u.email as user_email',
        'u.name as user_name',
      ])
      .where('h.page_id', '=', pageId);
    if (beforeId !== null) query = query.where('h.id', '<', beforeId);
    return query.orderBy('h.id', 'desc').limit(limit).execute();
  },

  /** The page's revision number `revision` (1 is the first), with its contents as stored. */
  revision(db: Executor, pageId: number, revision: number) {
    return db
      .selectFrom('page_history')
      .select(['id', 'title', 'slug', 'content_draft', 'content_published', 'contents', 'created'])
      .where('page_id', '=', pageId)
      .orderBy('id')
      .limit(1)
      .offset(revision - 1)
      .executeTakeFirst();
  },

  /** The packed contents of the page's revisions from `fromId` to before `toId`: what a change rests on. */
  packedBetween(db: Executor, pageId: number, fromId: number, toId: number) {
    return db
      .selectFrom('page_history')
      .select(['id', 'contents'])
      .where('page_id', '=', pageId)
      .where('id', '>=', fromId)
      .where('id', '<', toId)
      .where('contents', 'is not', null)
      .execute();
  },
};
