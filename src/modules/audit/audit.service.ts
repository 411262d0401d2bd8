import { decodeCursor, encodeCursor } from '../../shared/cursor.ts';
import type { Kysely } from 'kysely';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Database } from '../../db/schema.ts';
import { InvalidFieldError, PlanUpgradeRequiredError } from '../../errors.ts';
import { parseApiDate, toStoredDate } from '../../shared/dates.ts';
import { presentAuditEntry } from './audit.presenter.ts';
import { auditRepository as repo } from './audit.repository.ts';
import { AUDIT_SCOPES, type AuditScope } from './audit.schemas.ts';

export interface AuditQueryInput {
  scopes?: string | string[];
  'scopes[]'?: string | string[];
  max_date?: string;
  hits?: number;
  cursor?: string;
}

/** Reads the audit log that every change writes (AuditRecorder), newest first, page by page. */
export class AuditService {
  constructor(private readonly reader: Kysely<Database>) {}

  async list(ctx: UseCaseContext, query: AuditQueryInput) {
    if (ctx.scope.project.plan !== 'enterprise') throw new PlanUpgradeRequiredError('The audit log');
    const db = ctx.transaction ?? this.reader;
    const filter = {
      projectId: ctx.scope.project.id,
      scopes: parseScopes(query),
      maxDate:
        query.max_date === undefined ? null : toStoredDate(parseApiDate('query.max_date', query.max_date)),
      versions: ctx.scope.versions === null ? null : [...ctx.scope.versions],
    };
    const hits = query.hits ?? 20;
    const beforeId = query.cursor === undefined ? null : decodeCursor(query.cursor);
    // One more than asked tells whether a next page exists without a second count.
    const [rows, total] = await Promise.all([
      repo.page(db, filter, beforeId, hits + 1),
      repo.total(db, filter),
    ]);
    const data = rows.slice(0, hits).map(presentAuditEntry);
    const last = data[data.length - 1];
    return {
      data,
      count: data.length,
      total,
      cursor: rows.length > hits && last ? encodeCursor(last.id) : null,
    };
  }
}

/** `scopes[]=a&scopes[]=b`, `scopes=a&scopes=b` and `scopes=a,b` all mean the same. */
function parseScopes(query: AuditQueryInput): AuditScope[] {
  const given = [query.scopes, query['scopes[]']]
    .flat()
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (given.length === 0) return ['content'];
  const unknown = given.filter((s) => !(AUDIT_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new InvalidFieldError(
      'query.scopes',
      `must be among ${AUDIT_SCOPES.join(', ')} (got ${unknown.join(', ')})`,
    );
  }
  return [...new Set(given)] as AuditScope[];
}
