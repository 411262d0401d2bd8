import type { Static } from '@sinclair/typebox';
import { bool } from '../../db/executor.ts';
import type { AllDocumentationRow, AllReferenceRow, AllVersionRow } from './all.repository.ts';
import type { AllProjectSchema } from './all.schemas.ts';

export type AllProject = Static<typeof AllProjectSchema>;

/** The three small dictionaries' rows. */
export interface AllSmallRows {
  versions: AllVersionRow[];
  documentation: AllDocumentationRow[];
  references: AllReferenceRow[];
}

export interface AllRows extends AllSmallRows {
  /** the page dictionary's members (`"<id>":{…},…`), as allRepository.pagesJson writes them */
  pagesJson: string;
}

/** What comes before the page dictionary's members. */
export const ALL_JSON_HEAD = '{"page":{';

/** The answer of a listing that holds nothing (a key whose version scope is empty). */
export const EMPTY_ALL_JSON = '{"page":{},"documentation":{},"reference":{},"version":{}}';

// Each item is written field by field in the order of its schema in all.schemas.ts. Every string
// goes through JSON.stringify (quotes, backslashes, control characters); numbers are database
// integers and booleans are written as literals, so the text is always valid JSON and is what
// serialising the items as objects gave.
const str = JSON.stringify as (value: string) => string;
const boolJson = (value: number | boolean): string => (bool(value) ? 'true' : 'false');
const int = (value: number): string => String(Math.trunc(Number(value)));

/** A dictionary keyed by id, `{"<id>":<item>,…}`, in ascending id order: the order in which
 * JavaScript lists integer keys, and so the order the dictionaries always had. */
function dictionary<R extends { id: number }>(rows: readonly R[], item: (row: R) => string): string {
  const ordered = [...rows].sort((a, b) => a.id - b.id);
  return `{${ordered.map((row) => `"${int(row.id)}":${item(row)}`).join(',')}}`;
}

const versionJson = (r: AllVersionRow): string =>
  `{"name":${str(r.name)},"slug":${str(r.slug)},"published":${boolJson(r.published)},"ordr":${int(r.ordr)}}`;

const documentationJson = (r: AllDocumentationRow): string =>
  `{"title":${str(r.title)},"slug":${str(r.slug)},"versionId":${int(r.version_id)},` +
  `"published":${boolJson(r.published)},"ordr":${int(r.ordr)}}`;

const referenceJson = (r: AllReferenceRow): string =>
  `{"title":${str(r.title)},"slug":${str(r.slug)},"versionId":${int(r.version_id)},` +
  `"published":${boolJson(r.published)},"ordr":${int(r.ordr)}}`;

/** What comes after the page dictionary's members: the end of it and the three small dictionaries. */
export function allJsonTail(rows: AllSmallRows): string {
  return (
    `},"documentation":${dictionary(rows.documentation, documentationJson)}` +
    `,"reference":${dictionary(rows.references, referenceJson)}` +
    `,"version":${dictionary(rows.versions, versionJson)}}`
  );
}

/**
 * The listing's JSON text (AllProjectSchema) as UTF-8 bytes: the page members (most of the answer,
 * kept as the one string they are and encoded straight into the answer's buffer), the other, small,
 * dictionaries written here from their rows.
 */
export function allJson(rows: AllRows): Buffer {
  const texts = [ALL_JSON_HEAD, rows.pagesJson, allJsonTail(rows)];
  const body = Buffer.allocUnsafe(texts.reduce((n, text) => n + Buffer.byteLength(text, 'utf8'), 0));
  let offset = 0;
  for (const text of texts) offset += body.write(text, offset, 'utf8');
  return body;
}
