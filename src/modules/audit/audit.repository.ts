import type { Insertable } from 'kysely';
import type { Executor } from '../../db/executor.ts';
import type { AuditLogTable } from '../../db/schema.ts';
import { toCount } from '../../db/executor.ts';
import type { AuditScope } from './audit.schemas.ts';

export interface AuditFilter {
  projectId: number;
  scopes: readonly AuditScope[];
  /** stored-form timestamp; entries at or before it */
  maxDate: string | null;
  /** the reading key's version scope: entries about these versions, or about none; null for all */
  versions: readonly number[] | null;
}

const matching = (db: Executor, filter: AuditFilter) => {
  let query = db
    .selectFrom('audit_log')
    .where('project_id', '=', filter.projectId)
    .where('scope', 'in', [...filter.scopes]);
  if (filter.maxDate !== null) query = query.where('timestamp', '<=', filter.maxDate);
  // In the query, so that a page is never short of entries nor skips any, and `total` agrees.
  const versions = filter.versions;
  if (versions !== null) {
    query = query.where((eb) =>
      versions.length === 0
        ? eb('project_wide', '=', 1)
        : eb.or([eb('project_wide', '=', 1), eb('version_id', 'in', [...versions])]),
    );
  }
  return query;
};

export const auditRepository = {
  /** Newest first by id, which only grows: a cursor of "ids below N" stays stable as entries arrive. */
  page(db: Executor, filter: AuditFilter, beforeId: number | null, limit: number) {
    let query = matching(db, filter).selectAll();
    if (beforeId !== null) query = query.where('id', '<', beforeId);
    return query.orderBy('id', 'desc').limit(limit).execute();
  },

  async total(db: Executor, filter: AuditFilter): Promise<number> {
    const row = await matching(db, filter)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return toCount(row.n);
  },

  async insert(db: Executor, values: Insertable<AuditLogTable>): Promise<void> {
    await this.insertion(db, values).execute();
  },

  /** The insert of entries, unsent: a change queues it with its other writes (ChangeWrites). */
  insertion(db: Executor, values: Insertable<AuditLogTable> | Array<Insertable<AuditLogTable>>) {
    return db.insertInto('audit_log').values(values);
  },
};
