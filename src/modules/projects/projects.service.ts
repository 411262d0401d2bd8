import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database, ProjectsTable } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { formatApiDate, toStoredDate } from '../../shared/dates.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import type { ChangeContext, ProjectSettings } from '../keys/actor.ts';
import { assertNotBlank } from '../../shared/text.ts';

export type Plan = ProjectsTable['plan'];
export type AccessMode = ProjectsTable['access'];
export const PLANS: readonly Plan[] = ['free', 'grow', 'enterprise'];
export const ACCESS_MODES: readonly AccessMode[] = ['public', 'invite'];

export interface ProjectInput {
  name: string;
  plan?: Plan;
  access?: AccessMode;
  basePath?: string | null;
  host?: string | null;
}

export interface ProjectRecord extends ProjectSettings {
  created: string;
  updated: string;
}

export class ProjectsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    /** called after a project's settings change, so cached keys pick up the new plan or access */
    private readonly afterUpdate: () => void = () => undefined,
  ) {}

  async create(input: ProjectInput, ctx: ChangeContext): Promise<ProjectRecord> {
    assertNotBlank('name', input.name);
    const now = toStoredDate(this.clock.now());
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('projects')
        .values({
          name: input.name,
          plan: input.plan ?? 'free',
          access: input.access ?? 'public',
          base_path: input.basePath ?? null,
          host: input.host ?? null,
          variables: '{}',
          created: now,
          updated: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.audit.record(trx, ctx, {
        projectId: row.id,
        scope: 'other',
        entity: 'project',
        entityId: row.id,
        operation: 'INS',
        message: `Project '${row.name}' created`,
        details: { plan: row.plan, access: row.access },
      });
      return present(row);
    });
  }

  async update(id: number, input: Partial<ProjectInput>, ctx: ChangeContext): Promise<ProjectRecord> {
    if (input.name !== undefined) assertNotBlank('name', input.name);
    const updated = await this.db.transaction().execute(async (trx) => {
      const before = await findRow(trx, id);
      if (!before) throw new NotFoundError(`Project ${id} not found.`);
      const row = await trx
        .updateTable('projects')
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.plan !== undefined ? { plan: input.plan } : {}),
          ...(input.access !== undefined ? { access: input.access } : {}),
          ...(input.basePath !== undefined ? { base_path: input.basePath } : {}),
          ...(input.host !== undefined ? { host: input.host } : {}),
          updated: toStoredDate(this.clock.now()),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      // Each kind of change goes to its own audit scope, as the audit log's consumers filter by scope.
      const changes: Array<
        [scope: 'plan' | 'hosting' | 'security' | 'other', field: string, from: unknown, to: unknown]
      > = [
        ['other', 'name', before.name, row.name],
        ['plan', 'plan', before.plan, row.plan],
        ['security', 'access', before.access, row.access],
        ['hosting', 'basePath', before.base_path, row.base_path],
        ['hosting', 'host', before.host, row.host],
      ];
      for (const [scope, field, from, to] of changes) {
        if (from === to) continue;
        await this.audit.record(trx, ctx, {
          projectId: id,
          scope,
          entity: 'project',
          entityId: id,
          operation: 'UPD',
          message: `Project ${field} changed`,
          details: { field, from, to },
        });
      }
      return present(row);
    });
    this.afterUpdate();
    return updated;
  }

  async get(id: number): Promise<ProjectRecord> {
    const row = await findRow(this.db, id);
    if (!row) throw new NotFoundError(`Project ${id} not found.`);
    return present(row);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function findRow(db: Executor, id: number) {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}

function present(row: {
  id: number;
  name: string;
  plan: Plan;
  access: AccessMode;
  base_path: string | null;
  host: string | null;
  created: string;
  updated: string;
}): ProjectRecord {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    access: row.access,
    basePath: row.base_path,
    host: row.host,
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  };
}
