import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Executor } from '../../db/executor.ts';
import type { Database } from '../../db/schema.ts';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.ts';
import { toStoredDate } from '../../shared/dates.ts';
import { retryOnUniqueViolation } from '../../shared/retry.ts';
import { firstFreeSlug, slugify } from '../../shared/slug.ts';
import type { AuditRecorder } from '../audit/audit.recorder.ts';
import { assertVersionInScope, type Actor, type ChangeContext } from '../keys/actor.ts';
import type { Permission } from '../keys/permissions.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { DefinitionConverter } from './definition.converter.ts';
import { fileProblem, parseDefinition, type DefinitionFormat } from './definition.parser.ts';
import { validateDefinition } from './definition.validator.ts';
import { presentReference, type Reference } from './references.presenter.ts';
import {
  referencesRepository as repo,
  type DefinitionText,
  type ReferenceRow,
} from './references.repository.ts';

export interface UploadInput {
  versionId: number | 'latest';
  publish: boolean;
  /** Reads the uploaded file (null: none was sent); called only once the caller may upload here. */
  readFile: () => Promise<Buffer | null>;
}

/** The permission an upload needs depends on its `publish` flag, so the service checks it. */
const uploadPermission = (publish: boolean): Permission => (publish ? 'reference.publish' : 'reference.edit');

export class ReferencesService {
  private readonly converter = new DefinitionConverter();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly audit: AuditRecorder,
    private readonly versions: VersionsService,
  ) {}

  /** A reference of the actor's project, honouring the key's version scope (404 / 403). */
  async resolve(db: Executor, actor: Actor, id: number): Promise<ReferenceRow> {
    const row = await repo.findById(db, actor.project.id, id);
    if (!row) throw new NotFoundError(`Reference ${id} not found.`);
    assertVersionInScope(actor, row.version_id);
    return row;
  }

  /**
   * Creates or updates the reference of the version whose title is the file's `info.title`. Two
   * uploads of a new title racing each other: the loser's insert breaks the (version, title) unique
   * constraint, and the retry finds the winner's row and updates it.
   */
  async upload(actor: Actor, input: UploadInput, ctx: ChangeContext): Promise<Reference> {
    const permission = uploadPermission(input.publish);
    if (!actor.permissions.has(permission)) {
      throw new ForbiddenError(`This API key lacks the permission '${permission}'.`);
    }
    const selector = input.versionId === 'latest' ? { latest: true as const } : { id: input.versionId };
    const version = await this.versions.resolve(this.db, actor, selector);
    const bytes = await input.readFile();
    if (bytes === null) {
      throw fileProblem(
        "No file was uploaded: send the definition in the multipart/form-data field 'file' " +
          '(or as a raw application/json, application/yaml or text/yaml body).',
      );
    }
    const parsed = parseDefinition(bytes);
    const { title } = await validateDefinition(parsed);

    return retryOnUniqueViolation(() =>
      this.db.transaction().execute(async (trx) => {
        const now = toStoredDate(this.clock.now());
        const existing = await repo.findByTitle(trx, version.id, title);
        const written = input.publish
          ? {
              published: 1,
              definition_published: parsed.text,
              format_published: parsed.format,
              definition_draft: null,
              format_draft: null,
            }
          : { definition_draft: parsed.text, format_draft: parsed.format };
        const state = input.publish ? 'published' : 'draft written';
        let row: ReferenceRow;
        if (existing) {
          row = await repo.update(trx, existing.id, { ...written, deleted_at: null, updated: now });
        } else {
          const base = slugify(title, 'reference');
          row = await repo.insert(trx, {
            version_id: version.id,
            title,
            slug: firstFreeSlug(base, await repo.slugsStartingWith(trx, version.id, base)),
            ordr: await repo.nextOrdr(trx, version.id),
            published: 0,
            deleted_at: null,
            created: now,
            updated: now,
            ...written,
          });
        }
        await this.audit.record(trx, ctx, {
          projectId: actor.project.id,
          scope: 'content',
          entity: 'reference',
          entityId: row.id,
          operation: existing ? 'UPD' : 'INS',
          message: `Reference '${row.title}' ${existing ? 'updated' : 'created'} (${state})`,
          details: {
            versionId: version.id,
            slug: row.slug,
            publish: input.publish,
            format: parsed.format,
          },
        });
        return presentReference(row);
      }),
    );
  }

  async publish(actor: Actor, id: number, ctx: ChangeContext): Promise<Reference> {
    return this.db.transaction().execute(async (trx) => {
      await this.resolve(trx, actor, id);
      const row = await repo.publishDraft(trx, id, toStoredDate(this.clock.now()));
      if (!row) throw new BadRequestError(`Reference ${id} has no draft to publish.`);
      await this.audit.record(trx, ctx, {
        projectId: actor.project.id,
        scope: 'content',
        entity: 'reference',
        entityId: id,
        operation: 'UPD',
        message: `Reference '${row.title}' published`,
        details: { versionId: row.version_id, format: row.format_published },
      });
      return presentReference(row);
    });
  }

  /** The published definition, or the draft, as stored or converted to the format asked for. */
  async readDefinition(
    actor: Actor,
    id: number,
    options: { draft: boolean; format: 'auto' | DefinitionFormat },
  ): Promise<DefinitionText> {
    const row = await this.resolve(this.db, actor, id);
    const unavailable = options.draft ? 'Draft not found' : `Reference ${id} is not published.`;
    if (!options.draft && row.published !== 1) throw new NotFoundError(unavailable);
    const stored = await repo.definition(this.db, id, options.draft);
    if (!stored) throw new NotFoundError(unavailable);
    const format = options.format === 'auto' ? stored.format : options.format;
    return { text: this.converter.convert(stored.text, stored.format, format), format };
  }
}
