import { Type, type Static } from '@sinclair/typebox';

/*
 * A report holds thousands of findings, so the schema is written for the serialiser: plain enums and
 * `type: [T, 'null']` (OpenAPI 3.1) rather than unions, which fast-json-stringify settles value by
 * value with a validator (ten times the cost: 100 ms of event loop for 10,000 findings).
 */
const Enum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], description });

const OrNull = <T>(type: 'string' | 'integer', description: string) =>
  Type.Unsafe<T | null>({ type: [type, 'null'], description });

export const ISSUES = [
  'broken_link',
  'linked_page_unlisted',
  'linked_page_in_unpublished_documentation',
  'linked_page_in_unpublished_reference',
] as const;

const LinkTarget = Type.Object({
  title: Type.String(),
  section: Type.String({ description: "The page's documentation slug; `ref` for a reference" }),
});

export const BrokenLinkSchema = Type.Object(
  {
    severity: Enum(
      ['error', 'warning'],
      '`error` for a broken link, `warning` for a link readers may not be able to follow',
    ),
    issue: Enum(
      ISSUES,
      '`broken_link`: no such page, reference or heading anchor, or a malformed external link; ' +
        '`linked_page_unlisted`: the page is not listed; `linked_page_in_unpublished_documentation`: ' +
        "the page's documentation is not published; `linked_page_in_unpublished_reference`: the " +
        'reference has no published definition',
    ),
    message: Type.String(),
    isDraft: Type.Boolean({
      description:
        "Found in the page's pending draft (a draft equal to the published content is not reported again)",
    }),
    page: Type.Object(
      { id: Type.Integer(), title: Type.String() },
      { description: 'The page the link is on' },
    ),
    link: Type.Object({
      text: Type.String({ description: 'As readers see it (an [auto$] link: the title of its page)' }),
      href: Type.String({ description: 'As written' }),
      type: Enum(['page', 'ref', 'external'], 'What the link leads to'),
      fragment: OrNull<string>('string', 'The part after #, decoded; null without one'),
      targetId: OrNull<number>('integer', 'The page or reference linked to, when it exists'),
    }),
    target: Type.Unsafe<Static<typeof LinkTarget> | null>({
      ...LinkTarget,
      type: ['object', 'null'],
      description: 'The page or reference linked to; null when there is none',
    }),
  },
  { title: 'BrokenLink' },
);

export type BrokenLink = Static<typeof BrokenLinkSchema>;

export const BrokenLinkListSchema = Type.Array(BrokenLinkSchema, {
  description:
    "The problems found in the version's pages: by page id, published content before draft, in " +
    'reading order. Empty when every link is sound.',
});
