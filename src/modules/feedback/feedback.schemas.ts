import { Type } from '@sinclair/typebox';

/** The longest message a reader may send with their answer (site.md §7). */
export const MAX_FEEDBACK_MESSAGE = 2000;

export const FeedbackQuery = Type.Object({
  page_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: "One page's feedback; omitted: the project's",
    }),
  ),
  hits: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export const FeedbackSchema = Type.Object(
  {
    id: Type.Integer(),
    pageId: Type.Integer(),
    versionId: Type.Integer(),
    helpful: Type.Boolean({ description: 'the answer to "Was this page helpful?"' }),
    message: Type.Union([Type.String(), Type.Null()], { description: 'what the reader wrote, if anything' }),
    created: Type.String(),
  },
  { title: 'Feedback' },
);

export const FeedbackListSchema = Type.Object(
  {
    data: Type.Array(FeedbackSchema),
    count: Type.Integer({ description: 'Number of hits retrieved' }),
    total: Type.Integer({ description: 'Total number of hits retrievable' }),
    cursor: Type.Union([Type.String(), Type.Null()], { description: 'For the next page; null at the end' }),
  },
  { title: 'FeedbackList' },
);
