import { Type, type Static } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../shared/slug.ts';
import { PageCreateBody, PageFormatQuery } from '../pages/pages.schemas.ts';

/** A post's contents are Darkdown like a page's, with a page's limits (and its 413 past the body limit). */
const pageFields = PageCreateBody.properties;

export const MAX_POSTS_PER_ANSWER = 50;

export const ChangelogPostSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    slug: Type.String({ description: 'Unique in the changelog' }),
    published: Type.Boolean({ description: 'Whether readers (and search) can see it' }),
    content: Type.String({ description: 'Contents in the selected format (Darkdown when written)' }),
    created: Type.String({ description: 'Date of creation, e.g. 2026-11-21T10:15:00+0000' }),
    updated: Type.String({ description: 'Date of last update' }),
  },
  { title: 'ChangelogPost' },
);

export const ChangelogPostCreateBody = Type.Object(
  {
    title: { ...pageFields.title, description: 'Title of the post' },
    content: { ...pageFields.content, description: 'Contents, in Darkdown' },
    slug: Type.Optional(
      Type.String({
        pattern: SLUG_PATTERN,
        description: 'Slug in the URL, unique in the changelog; generated from the title when absent',
      }),
    ),
    published: Type.Optional(
      Type.Boolean({ default: false, description: 'Whether readers (and search) can see it' }),
    ),
  },
  { title: 'ChangelogPostCreate' },
);
export type ChangelogPostCreateInput = Static<typeof ChangelogPostCreateBody>;

export const ChangelogPostListQuery = Type.Object({
  count: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_POSTS_PER_ANSWER,
      default: 10,
      description: 'Posts per answer',
    }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: 'The cursor of the previous answer, for the next posts' }),
  ),
  format: PageFormatQuery.properties.format,
});
export type ChangelogPostListInput = Static<typeof ChangelogPostListQuery>;

export const ChangelogPostListSchema = Type.Object(
  {
    posts: Type.Array(ChangelogPostSchema),
    count: Type.Integer({ description: 'Posts in this answer' }),
    total: Type.Integer({ description: 'Posts of the changelog, published or not' }),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'For the next answer; null at the end' }),
  },
  { title: 'ChangelogPostList' },
);
