import { SLUG_PATTERN } from '../../shared/slug.ts';
import { Type } from '@sinclair/typebox';

export const DocumentationSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    published: Type.Boolean({ description: 'True if readers can view it' }),
    created: Type.String(),
    updated: Type.String(),
    slug: Type.String(),
    ordr: Type.Integer({ description: 'Numerical order in the version' }),
  },
  { title: 'Documentation' },
);

const Title = Type.String({ minLength: 1, maxLength: 255 });
const Slug = Type.String({ pattern: SLUG_PATTERN, description: 'Unique in the version' });

export const DocumentationCreateBody = Type.Object(
  {
    title: Title,
    slug: Type.Optional(Slug),
    published: Type.Optional(Type.Boolean({ default: false })),
  },
  { title: 'DocumentationCreate' },
);

export const DocumentationUpdateBody = Type.Object(
  {
    title: Type.Optional(Title),
    slug: Type.Optional(Slug),
    published: Type.Optional(Type.Boolean()),
    ordr: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000,
        description: 'Its place among the version’s sections, from 0',
      }),
    ),
  },
  { title: 'DocumentationUpdate' },
);

export const DeleteQuery = Type.Object({
  cascade: Type.Optional(Type.Boolean({ default: false, description: 'Delete the section’s pages with it' })),
});

export const CategoryCreateBody = Type.Object({ title: Title }, { title: 'CategoryCreate' });

export const CategorySchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    position: Type.Integer({ description: 'Place in the section’s index (shared with pages)' }),
  },
  { title: 'Category' },
);
