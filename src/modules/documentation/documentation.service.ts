import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import { int, type Executor } from '../../db/executor.ts';
import type { DialectName } from '../../db/dialect.ts';
import type { Database } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { retryOnUniqueViolation, slugConflict } from '../../shared/retry.ts';
import { assertSlug, firstFreeSlug, slugify } from '../../shared/slug.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import { assertVersionInScope, type Actor, type ChangeContext } from '../keys/actor.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import {
  presentCategory,
  presentDocumentation,
  type Category,
  type Documentation,
} from './documentation.presenter.ts';
import { documentationRepository as repo, type DocumentationRow } from './documentation.repository.ts';
import { assertNotBlank } from '../../shared/text.ts';

export interface DocumentationCreateInput {
  versionId: number;
  title: string;
  slug?: string;
  published?: boolean;
}

export class DocumentationService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly versions: VersionsService,
    private readonly dialect: DialectName,
  ) {}

  async listForVersion(actor: Actor, versionId: number): Promise<Documentation[]> {
    const version = await this.versions.resolve(this.db, actor, { id: versionId });
    const rows = await repo.listByVersion(this.db, version.id);
    return rows.map(presentDocumentation);
  }

  /** A section of the actor's project, honouring the key's version scope (404 / 403). */
  async resolve(db: Executor, actor: Actor, id: number): Promise<DocumentationRow> {
    const row = await repo.findById(db, actor.project.id, id);
    if (!row) throw new NotFoundError(`Documentation ${id} not found.`);
    assertVersionInScope(actor, row.version_id);
    return row;
  }

  async create(input: DocumentationCreateInput, ctx: ChangeContext): Promise<Documentation> {
    assertNotBlank('title', input.title);
    if (input.slug !== undefined) assertSlug('slug', input.slug);
    return retryOnUniqueViolation(() =>
      this.db.transaction().execute(async (trx) => {
        const version = await trx
          .selectFrom('versions')
          .select(['id', 'project_id'])
          .where('id', '=', input.versionId)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        if (!version) throw new NotFoundError(`Version ${input.versionId} not found.`);
        let slug: string;
        if (input.slug !== undefined) {
          if (await repo.findBySlug(trx, version.id, input.slug))
            throw slugConflict('documentation', input.slug);
          slug = input.slug;
        } else {
          const base = slugify(input.title, 'documentation');
          slug = firstFreeSlug(base, await repo.slugsStartingWith(trx, version.id, base));
        }
        const now = toStoredDate(this.clock.now());
        const row = await repo.insert(trx, {
          version_id: version.id,
          title: input.title,
          slug,
          published: int(input.published ?? false),
          ordr: await repo.nextOrdr(trx, version.id),
          deleted_at: null,
          created: now,
          updated: now,
        });
        await this.audit.record(trx, ctx, {
          projectId: version.project_id,
          scope: 'content',
          entity: 'documentation',
          entityId: row.id,
          operation: 'INS',
          message: `Documentation '${row.title}' created`,
          details: { versionId: version.id, slug: row.slug, published: input.published ?? false },
        });
        return presentDocumentation(row);
      }),
    );
  }

  async createCategory(
    input: { documentationId: number; title: string },
    ctx: ChangeContext,
  ): Promise<Category> {
    assertNotBlank('title', input.title);
    return this.db.transaction().execute(async (trx) => {
      const section = await trx
        .selectFrom('documentation as d')
        .innerJoin('versions as v', 'v.id', 'd.version_id')
        .select(['d.id', 'v.project_id'])
        .where('d.id', '=', input.documentationId)
        .where('d.deleted_at', 'is', null)
        .executeTakeFirst();
      if (!section) throw new NotFoundError(`Documentation ${input.documentationId} not found.`);
      await repo.lockIndex(trx, this.dialect, section.id);
      const now = toStoredDate(this.clock.now());
      const row = await repo.insertCategory(trx, {
        documentation_id: section.id,
        title: input.title,
        position: await repo.nextPosition(trx, section.id),
        created: now,
        updated: now,
      });
      await this.audit.record(trx, ctx, {
        projectId: section.project_id,
        scope: 'content',
        entity: 'category',
        entityId: row.id,
        operation: 'INS',
        message: `Category '${row.title}' created`,
        details: { documentationId: section.id },
      });
      return presentCategory(row);
    });
  }
}
