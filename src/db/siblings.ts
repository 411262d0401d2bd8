import { sql } from 'kysely';
import { ConflictError } from '../errors.ts';
import { firstFreeSlug, slugify } from '../shared/slug.ts';
import type { Executor } from './executor.ts';

/** Tables whose rows have a slug unique within a parent row, and the column naming that parent. */
const PARENT_COLUMN = {
  versions: 'project_id',
  documentation: 'version_id',
  api_references: 'version_id',
  pages: 'documentation_id',
  changelogs: 'project_id',
  changelog_posts: 'changelog_id',
} as const;

export type SluggedTable = keyof typeof PARENT_COLUMN;
type OrderedTable = 'versions' | 'documentation' | 'api_references';

export interface SlugChoice {
  /** what the row is called in a conflict message: `page`, `version`… */
  kind: string;
  /** a slug the caller chose: used as it is, or a 409 when another row holds it */
  explicit?: string | undefined;
  /** otherwise the slug is made from this title */
  title: string;
  /** the slug of a title with nothing sluggable in it */
  fallback: string;
  /** the row being renamed: its own slug is no collision */
  self?: number;
  /** slugs no row may take (`latest` for versions) */
  reserved?: ReadonlySet<string>;
}

/** An explicit slug that is taken is the caller's conflict, reported as 409 naming it. */
export function slugConflict(kind: string, slug: string): ConflictError {
  return new ConflictError(`The slug '${slug}' is already used by another ${kind} here.`);
}

/**
 * The one slug rule of every slugged table: a slug is taken by any row of the parent that holds it,
 * deleted rows included (they keep it in the unique index). A deleted page holds `slug~id` instead,
 * which frees its slug (pages.trash.repository.ts). An explicit slug must be free; a generated one
 * is the title's slug, or the first free `-2`, `-3`….
 * Two writers racing for the same generated slug: the loser's insert breaks the unique index, and the
 * transaction runner (inTransaction) runs it again, which picks the next one.
 */
export async function pickSlug(
  db: Executor,
  table: SluggedTable,
  parentId: number,
  choice: SlugChoice,
): Promise<string> {
  if (choice.explicit !== undefined) {
    const taken = await slugsOf(db, table, parentId, choice.explicit, choice.self, false);
    if (taken.size > 0) throw slugConflict(choice.kind, choice.explicit);
    return choice.explicit;
  }
  const base = slugify(choice.title, choice.fallback);
  // Most titles are new: one seek in the unique (parent, slug) index settles it. Only a taken base
  // needs its family, which no index narrows (LIKE) beyond the parent's rows.
  if (!(choice.reserved?.has(base) ?? false)) {
    const holders = await slugsOf(db, table, parentId, base, choice.self, false);
    if (holders.size === 0) return base;
  }
  const taken = await slugsOf(db, table, parentId, base, choice.self, true);
  for (const reserved of choice.reserved ?? []) taken.add(reserved);
  return firstFreeSlug(base, taken);
}

async function slugsOf(
  db: Executor,
  table: SluggedTable,
  parentId: number,
  base: string,
  self: number | undefined,
  family: boolean,
): Promise<Set<string>> {
  let query = db
    .selectFrom(table)
    .select('slug')
    .where(sql.ref(PARENT_COLUMN[table]), '=', parentId)
    .where((eb) =>
      family ? eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]) : eb('slug', '=', base),
    );
  if (self !== undefined) query = query.where('id', '<>', self);
  const rows = await query.execute();
  return new Set(rows.map((r) => r.slug));
}

/** The `ordr` that puts a new child after its parent's others. */
export async function nextOrdr(db: Executor, table: OrderedTable, parentId: number): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('ordr').as('max'))
    .where(sql.ref(PARENT_COLUMN[table]), '=', parentId)
    .executeTakeFirst();
  return Number(row?.max ?? 0) + 1;
}
