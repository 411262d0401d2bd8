import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import { int } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { BadRequestError, NotFoundError, UniqueViolationError } from '../../errors.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { retryOnUniqueViolation, slugConflict } from '../../shared/retry.ts';
import { assertVersionSlug, firstFreeSlug, RESERVED_VERSION_SLUGS, slugify } from '../../shared/slug.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import { assertVersionInScope, canSeeVersion, type Actor, type ChangeContext } from '../keys/actor.ts';
import { presentVersion, type Version } from './versions.presenter.ts';
import { versionsRepository as repo, type VersionRow } from './versions.repository.ts';
import { assertNotBlank } from '../../shared/text.ts';

export interface VersionCreateInput {
  projectId: number;
  name: string;
  slug?: string;
  published?: boolean;
}

export interface VersionUpdateInput {
  name?: string;
  slug?: string;
  published?: boolean;
}

/** How callers name a version: by id, by slug, or `latest` (the default version). */
export type VersionSelector = { id: number } | { slug: string } | { latest: true };

export class VersionsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
  ) {}

  async list(actor: Actor): Promise<Version[]> {
    const rows = await repo.list(this.db, actor.project.id);
    return rows.filter((r) => canSeeVersion(actor, r.id)).map(presentVersion);
  }

  /** Finds a version of the actor's project, honouring the key's version scope (404 / 403). */
  async resolve(db: Executor, actor: Actor, selector: VersionSelector): Promise<VersionRow> {
    const projectId = actor.project.id;
    let row: VersionRow | undefined;
    let label: string;
    if ('id' in selector) {
      row = await repo.findById(db, projectId, selector.id);
      label = `Version ${selector.id}`;
    } else if ('slug' in selector && selector.slug !== 'latest') {
      row = await repo.findBySlug(db, projectId, selector.slug);
      label = `Version '${selector.slug}'`;
    } else {
      row = await repo.findDefault(db, projectId);
      label = 'A default (published) version';
    }
    if (!row) throw new NotFoundError(`${label} not found.`);
    assertVersionInScope(actor, row.id);
    return row;
  }

  async create(input: VersionCreateInput, ctx: ChangeContext): Promise<Version> {
    assertNotBlank('name', input.name);
    if (input.slug !== undefined) assertVersionSlug('slug', input.slug);
    return retryOnUniqueViolation(() =>
      this.db.transaction().execute(async (trx) => {
        const project = await trx
          .selectFrom('projects')
          .select('id')
          .where('id', '=', input.projectId)
          .executeTakeFirst();
        if (!project) throw new NotFoundError(`Project ${input.projectId} not found.`);
        const slug = await this.pickSlug(trx, input.projectId, input.slug, input.name);
        const now = toStoredDate(this.clock.now());
        const row = await repo.insert(trx, {
          project_id: input.projectId,
          name: input.name,
          slug,
          published: int(input.published ?? false),
          ordr: await repo.nextOrdr(trx, input.projectId),
          deleted_at: null,
          created: now,
          updated: now,
        });
        await this.audit.record(trx, ctx, {
          projectId: input.projectId,
          scope: 'content',
          entity: 'version',
          entityId: row.id,
          operation: 'INS',
          message: `Version '${row.name}' created`,
          details: { slug: row.slug, published: input.published ?? false },
        });
        return presentVersion(row);
      }),
    );
  }

  async update(actor: Actor, id: number, input: VersionUpdateInput, ctx: ChangeContext): Promise<Version> {
    if (input.name === undefined && input.slug === undefined && input.published === undefined) {
      throw new BadRequestError('Give at least one of name, slug, published.', [
        { field: 'body', message: 'must have at least one of name, slug, published' },
      ]);
    }
    if (input.name !== undefined) assertNotBlank('body.name', input.name);
    if (input.slug !== undefined) assertVersionSlug('body.slug', input.slug);
    return this.db.transaction().execute(async (trx) => {
      const before = await this.resolve(trx, actor, { id });
      let row: VersionRow;
      try {
        row = await repo.update(trx, id, {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.slug !== undefined ? { slug: input.slug } : {}),
          ...(input.published !== undefined ? { published: int(input.published) } : {}),
          updated: toStoredDate(this.clock.now()),
        });
      } catch (error) {
        if (error instanceof UniqueViolationError && input.slug !== undefined)
          throw slugConflict('version', input.slug);
        throw error;
      }
      await this.audit.record(trx, ctx, {
        projectId: actor.project.id,
        scope: 'content',
        entity: 'version',
        entityId: id,
        operation: 'UPD',
        message: `Version '${row.name}' updated`,
        details: {
          before: { name: before.name, slug: before.slug, published: before.published === 1 },
          after: { name: row.name, slug: row.slug, published: row.published === 1 },
        },
      });
      return presentVersion(row);
    });
  }

  private async pickSlug(
    db: Executor,
    projectId: number,
    explicit: string | undefined,
    name: string,
  ): Promise<string> {
    if (explicit !== undefined) {
      if ((await repo.findBySlug(db, projectId, explicit)) !== undefined)
        throw slugConflict('version', explicit);
      return explicit;
    }
    const base = slugify(name, 'version');
    const taken = await repo.slugsStartingWith(db, projectId, base);
    for (const reserved of RESERVED_VERSION_SLUGS) taken.add(reserved);
    return firstFreeSlug(base, taken);
  }
}
