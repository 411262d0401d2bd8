import type { Insertable } from 'kysely';
import type { DialectName } from '../../db/dialect.ts';
import type { Executor } from '../../db/executor.ts';
import type { MailOutboxTable, MailStatus } from '../../db/schema.reader-login.ts';

/** A mail claimed for sending. */
export interface ClaimedMail {
  id: number;
  projectId: number;
  kind: MailOutboxTable['kind'];
  email: string;
  siteRoot: string;
  nextPath: string | null;
  attempts: number;
  projectName: string;
}

export const mailOutboxRepository = {
  insertion(db: Executor, values: Insertable<MailOutboxTable>) {
    return db.insertInto('mail_outbox').values(values);
  },

  /** Due mails nobody holds, oldest first; on PostgreSQL locked, skipping those another instance claims. */
  due(db: Executor, dialect: DialectName, now: string, limit: number): Promise<ClaimedMail[]> {
    let query = db
      .selectFrom('mail_outbox as m')
      .innerJoin('projects as p', 'p.id', 'm.project_id')
      .select([
        'm.id',
        'm.project_id as projectId',
        'm.kind',
        'm.email',
        'm.site_root as siteRoot',
        'm.next_path as nextPath',
        'm.attempts',
        'p.name as projectName',
      ])
      .where('m.status', '=', 'pending')
      .where('m.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('m.claimed_until', 'is', null), eb('m.claimed_until', '<', now)]))
      .orderBy('m.next_attempt_at')
      .orderBy('m.id')
      .limit(limit);
    if (dialect === 'postgres') query = query.forUpdate('m').skipLocked();
    return query.execute();
  },

  async lease(db: Executor, ids: number[], until: string, token: string): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('mail_outbox')
      .set({ claimed_until: until, claim_token: token })
      .where('id', 'in', ids)
      .execute();
  },

  /** Stores how an attempt ended, if the lease is still ours. */
  async finish(
    db: Executor,
    id: number,
    token: string,
    outcome: {
      status: MailStatus;
      attempts: number;
      nextAttemptAt: string;
      completedAt: string | null;
      error: string | null;
    },
  ): Promise<void> {
    await db
      .updateTable('mail_outbox')
      .set({
        status: outcome.status,
        attempts: outcome.attempts,
        next_attempt_at: outcome.nextAttemptAt,
        completed_at: outcome.completedAt,
        last_error: outcome.error,
        claimed_until: null,
        claim_token: null,
      })
      .where('id', '=', id)
      .where('claim_token', '=', token)
      .execute();
  },

  /** Removes mails finished before `before`: the addresses asked for are not kept. */
  async purge(db: Executor, before: string): Promise<number> {
    const result = await db
      .deleteFrom('mail_outbox')
      .where('status', '<>', 'pending')
      .where('completed_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
