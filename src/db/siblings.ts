import { sql } from 'kysely';
import type { Executor } from './executor.ts';

/** Tables whose rows have a slug unique within a parent row, and the column naming that parent. */
const PARENT_COLUMN = {
  versions: 'project_id',
  documentation: 'version_id',
  api_references: 'version_id',
  pages: 'documentation_id',
} as const;

type SluggedTable = keyof typeof PARENT_COLUMN;
type OrderedTable = Exclude<SluggedTable, 'pages'>;

/**
 * The slugs of a parent's children that are `base` or `base-…`, deleted rows included (they still
 * hold their slug in the unique index): what `firstFreeSlug` needs to pick the next free one.
 */
export async function slugsStartingWith(
  db: Executor,
  table: SluggedTable,
  parentId: number,
  base: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom(table)
    .select('slug')
    .where(sql.ref(PARENT_COLUMN[table]), '=', parentId)
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
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
