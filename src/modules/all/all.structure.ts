import { Type, type Static } from '@sinclair/typebox';
import type { UseCaseContext } from '../../auth/actor.ts';
import type { Executor } from '../../db/executor.ts';
import { SLUG_PATTERN } from '../../shared/slug.ts';
import type { VersionsService } from '../versions/versions.service.ts';
import { structureRepository as repo } from './all.structure.repository.ts';

/*
 * One version's structure for a client that fills it (`quire sync`): its sections, its pages with their
 * slugs and whether a draft waits, its references and whether one has a draft. `/all` says as much of
 * the whole project, but it is 30 an hour per key; a pipeline's dry run on every push must not spend
 * those. Nothing here is a page's contents.
 */

export const StructureQuery = Type.Object({
  // `latest` is itself a slug's shape: one pattern covers both.
  version_slug: Type.Optional(
    Type.String({
      pattern: SLUG_PATTERN,
      maxLength: 100,
      description: 'The version, by slug; `latest` (the default) for the default version',
    }),
  ),
});

const StructureSection = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  slug: Type.String(),
  published: Type.Boolean(),
  ordr: Type.Integer(),
});

const StructurePage = Type.Object({
  id: Type.Integer(),
  documentationId: Type.Integer(),
  title: Type.String(),
  slug: Type.String(),
  listed: Type.Boolean(),
  hasDraft: Type.Boolean({ description: 'True while the page has draft contents not yet published' }),
});

const StructureReference = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  published: Type.Boolean(),
  hasDraft: Type.Boolean({ description: 'True while a draft definition waits to be published' }),
});

export const StructureSchema = Type.Object(
  {
    version: Type.Object({ id: Type.Integer(), slug: Type.String() }),
    sections: Type.Array(StructureSection, { description: 'Live sections, in `ordr` order' }),
    pages: Type.Array(StructurePage, {
      description: 'Live pages of those sections, by section and position',
    }),
    references: Type.Array(StructureReference, { description: 'Live references, in `ordr` order' }),
  },
  { title: 'VersionStructure' },
);

export type Structure = Static<typeof StructureSchema>;

/** The structure of the version the slug names, honouring the key's version scope (404 / 403). */
export async function versionStructure(
  db: Executor,
  versions: VersionsService,
  ctx: UseCaseContext,
  slug: string,
): Promise<Structure> {
  const version = await versions.resolve(db, ctx.scope, slug === 'latest' ? { latest: true } : { slug });
  const [sections, pages, references] = await Promise.all([
    repo.sections(db, version.id),
    repo.pages(db, version.id),
    repo.references(db, version.id),
  ]);
  return {
    version: { id: version.id, slug: version.slug },
    sections: sections.map((s) => ({ ...s, published: Boolean(s.published) })),
    pages: pages.map((p) => ({
      id: p.id,
      documentationId: p.documentation_id,
      title: p.title,
      slug: p.slug,
      listed: Boolean(p.listed),
      hasDraft: Boolean(p.has_draft),
    })),
    references: references.map((r) => ({
      id: r.id,
      title: r.title,
      published: Boolean(r.published),
      hasDraft: Boolean(r.has_draft),
    })),
  };
}
