import { Type, type Static } from '@sinclair/typebox';

export const MAX_QUERY_CHARS = 500;

export const SearchQuery = Type.Object({
  query: Type.String({ minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'What to look for' }),
  version_slug: Type.Optional(
    Type.String({ maxLength: 100, description: 'One version (`latest`: the default one); omitted: all' }),
  ),
  documentation_slug: Type.Optional(
    Type.String({ maxLength: 100, description: 'One documentation section (its pages only)' }),
  ),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000, default: 0, description: 'From 0' })),
  hits: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Hits per page' })),
});
export type SearchInput = Static<typeof SearchQuery>;

export const SearchHitSchema = Type.Object(
  {
    content: Type.String({
      description: 'The text of the section (or operation), up to about 500 characters',
    }),
    title: Type.String({ description: "The section's heading, the page's title, or the operation's" }),
    sectionType: Type.Union([Type.Literal('doc'), Type.Literal('ref'), Type.Literal('changelog')], {
      description: 'A page, an operation of a reference, or a changelog post',
    }),
    version: Type.Union([Type.String(), Type.Null()], {
      description: 'Version slug; null for a changelog post (posts belong to the project)',
    }),
    section: Type.String({
      description:
        "Documentation section slug; 'ref' for a reference operation; the changelog's slug for a post",
    }),
    page: Type.String({ description: 'Page slug, the reference slug, or the post slug' }),
    pageId: Type.Union([Type.Integer(), Type.Null()], {
      description: 'null for a reference operation or a changelog post',
    }),
    fragment: Type.String({
      description: "The heading's anchor or the operation's; '' for the start of a page or post",
    }),
    path: Type.String({
      description:
        '/<version>/<section>/<page>#<fragment>; /changelog/<changelog>/<post>#<fragment> for a post',
    }),
    highlight: Type.Object({
      title: Type.String({ description: 'HTML: matched words in <mark>, everything else escaped' }),
      content: Type.String({ description: 'HTML: about 200 characters around the first match' }),
    }),
  },
  { title: 'SearchHit' },
);

export const SearchResultSchema = Type.Object(
  {
    hits: Type.Array(SearchHitSchema),
    nbHits: Type.Integer({ description: 'All matches' }),
    page: Type.Integer(),
    nbPages: Type.Integer(),
    hitsPerPage: Type.Integer(),
    query: Type.String(),
    basepath: Type.Union([Type.String(), Type.Null()], { description: "The project's base path" }),
    host: Type.Union([Type.String(), Type.Null()], { description: "The project's host" }),
  },
  { title: 'SearchResult' },
);
