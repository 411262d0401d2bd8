import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { ReaderLoginTokensTable, ReaderSessionsTable } from '../../db/schema.reader-login.ts';

/** A session as every request of a private site checks it: the session, its grant, the project's key. */
export interface SessionCheck {
  projectId: number;
  kind: ReaderSessionsTable['kind'];
  email: string;
  expiresAt: string;
  endedAt: string | null;
  jwtKeyDigest: string | null;
  accessId: number | null;
  grantRevokedAt: string | null;
  grantExpiresAt: string | null;
  /** null when the grant is gone (or the session names none) */
  grantId: number | null;
  projectJwtKey: string | null;
}

export const readerLoginRepository = {
  /** The grant of an address in a project, whatever its state. */
  grantOf(db: Executor, projectId: number, email: string) {
    return db
      .selectFrom('reader_access')
      .select(['id', 'email', 'expires_at', 'revoked_at'])
      .where('project_id', '=', projectId)
      .where('email', '=', email)
      .executeTakeFirst();
  },

  grantById(db: Executor, id: number) {
    return db
      .selectFrom('reader_access')
      .select(['id', 'project_id', 'email', 'expires_at', 'revoked_at'])
      .where('id', '=', id)
      .executeTakeFirst();
  },

  async insertToken(db: Executor, values: Insertable<ReaderLoginTokensTable>): Promise<number> {
    const row = await db
      .insertInto('reader_login_tokens')
      .values(values)
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  },

  async deleteToken(db: Executor, id: number): Promise<void> {
    await db.deleteFrom('reader_login_tokens').where('id', '=', id).execute();
  },

  tokenByHash(db: Executor, projectId: number, hash: string) {
    return db
      .selectFrom('reader_login_tokens')
      .select(['id', 'access_id', 'expires_at', 'used_at'])
      .where('token_hash', '=', hash)
      .where('project_id', '=', projectId)
      .executeTakeFirst();
  },

  /** Marks a token used, if nobody has: false when another request used it first. */
  async useToken(db: Executor, id: number, at: string): Promise<boolean> {
    const result = await db
      .updateTable('reader_login_tokens')
      .set({ used_at: at })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async insertSession(db: Executor, values: ReaderSessionsTable): Promise<void> {
    await db.insertInto('reader_sessions').values(values).execute();
  },

  /** One read by primary key, its grant and its project joined by theirs. */
  session(db: Executor, id: string): Promise<SessionCheck | undefined> {
    return db
      .selectFrom('reader_sessions as s')
      .innerJoin('projects as p', 'p.id', 's.project_id')
      .leftJoin('reader_access as a', 'a.id', 's.access_id')
      .select([
        's.project_id as projectId',
        's.kind',
        's.email',
        's.expires_at as expiresAt',
        's.ended_at as endedAt',
        's.jwt_key_digest as jwtKeyDigest',
        's.access_id as accessId',
        'a.id as grantId',
        'a.revoked_at as grantRevokedAt',
        'a.expires_at as grantExpiresAt',
        'p.reader_jwt_key as projectJwtKey',
      ])
      .where('s.id', '=', id)
      .executeTakeFirst();
  },

  /** Ends a session of a project; the session's address when one was ended. */
  async endSession(db: Executor, projectId: number, id: string, at: string): Promise<string | undefined> {
    const row = await db
      .updateTable('reader_sessions')
      .set({ ended_at: at })
      .where('id', '=', id)
      .where('project_id', '=', projectId)
      .where('ended_at', 'is', null)
      .returning('email')
      .executeTakeFirst();
    return row?.email;
  },

  async jwtKey(db: Executor, projectId: number): Promise<string | null> {
    const row = await db
      .selectFrom('projects')
      .select('reader_jwt_key')
      .where('id', '=', projectId)
      .executeTakeFirst();
    return row?.reader_jwt_key ?? null;
  },

  async setJwtKey(db: Executor, projectId: number, stored: string | null, at: string): Promise<void> {
    await db
      .updateTable('projects')
      .set({ reader_jwt_key: stored, updated: at })
      .where('id', '=', projectId)
      .execute();
  },

  /** Forgets sessions and links past their end by `before` (stored-date text). */
  async purge(db: Executor, before: string): Promise<number> {
    const tokens = await db
      .deleteFrom('reader_login_tokens')
      .where('expires_at', '<', before)
      .executeTakeFirst();
    const sessions = await db
      .deleteFrom('reader_sessions')
      .where('expires_at', '<', before)
      .executeTakeFirst();
    return Number(tokens.numDeletedRows) + Number(sessions.numDeletedRows);
  },
};
