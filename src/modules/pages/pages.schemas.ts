import { Type, type Static } from '@sinclair/typebox';
import { documentedAs } from '../../http/schemas.ts';
import { SLUG_PATTERN } from '../../shared/slug.ts';

export const CONTENT_FORMATS = ['darkdown', 'markdown', 'html', 'text', 'markdoc'] as const;
export type PageFormat = (typeof CONTENT_FORMATS)[number];

const NullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const PageSchema = Type.Object(
  {
    id: Type.Integer(),
    listed: Type.Boolean({ description: 'True if readers can view it when the version is published' }),
    title: Type.String(),
    created: Type.String({ description: 'Date of creation, e.g. 2026-11-21T10:15:00+0000' }),
    updated: Type.String({ description: 'Date of last update' }),
    slug: Type.String(),
    contentDraft: NullableString('Draft content in the selected format; null when there is no draft'),
    contentPublished: NullableString('Published content in the selected format; null when never published'),
    path: Type.String({ description: '<version-slug>/<documentation-slug>/<page-slug>' }),
  },
  { title: 'Page' },
);

const Title = Type.String({ minLength: 1, maxLength: 255, description: 'Title of the page' });
const Slug = Type.String({ pattern: SLUG_PATTERN, description: 'Slug in the URL; generated when absent' });
const Content = Type.String({ maxLength: 4_000_000, description: 'Draft contents, in Darkdown' });
const Message = Type.String({ minLength: 1, maxLength: 1000, description: 'Message kept in the history' });

export const PageCreateBody = Type.Object(
  {
    title: Title,
    content: Content,
    slug: Type.Optional(Slug),
    categoryTitle: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Title of an existing category of the section (case-insensitive)',
      }),
    ),
    message: Type.Optional(Message),
  },
  { title: 'PageCreate' },
);
export type PageCreateInput = Static<typeof PageCreateBody>;

export const PageUpdateBody = Type.Object(
  {
    title: Type.Optional(Title),
    slug: Type.Optional(Slug),
    content: Type.Optional(Content),
    message: Type.Optional(Message),
    listed: Type.Optional(Type.Boolean({ description: 'Whether the page shows in its section’s index' })),
    categoryTitle: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Moves the page (and its children) into this category of its section, after its last page',
      }),
    ),
    parentId: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()], {
        description:
          'Makes the page a child of this page of its section (last among its children); null: top level',
      }),
    ),
  },
  { title: 'PageUpdate' },
);
export type PageUpdateInput = Static<typeof PageUpdateBody>;

// A plain enum (not a union of literals) so that a bad value is reported as 'must be one of …'.
const Format = Type.Optional(
  Type.Unsafe<PageFormat>({
    type: 'string',
    enum: [...CONTENT_FORMATS],
    default: 'darkdown',
    description: 'Format of the returned contents',
  }),
);

export const PageFormatQuery = Type.Object({ format: Format });

const BySlugFields = {
  version_slug: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Version slug, or `latest`' }),
  ),
  documentation_id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Documentation ID' }),
  ),
  documentation_slug: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Documentation slug' }),
  ),
};

/**
 * page_slug and one of each pair are checked by the service, so that one 400 names every parameter
 * missing; version_id is read as text there, so that an id out of range is a 404 like any unknown id.
 * The document states the contract: page_slug required, version_id an integer or `latest`.
 */
export const PageBySlugQuery = documentedAs(
  Type.Object({
    version_id: Type.Optional(
      Type.String({
        pattern: '^([1-9][0-9]{0,9}|latest)$',
        description: 'Version ID, or `latest` for the default version',
      }),
    ),
    ...BySlugFields,
    page_slug: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Page slug' })),
    format: Format,
  }),
  Type.Object({
    version_id: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('latest')], {
        description: 'Version ID, or `latest` for the default version (this or version_slug)',
      }),
    ),
    ...BySlugFields,
    page_slug: Type.String({ minLength: 1, maxLength: 100, description: 'Page slug' }),
    format: Format,
  }),
);
export type PageBySlugInput = Static<typeof PageBySlugQuery>;
