import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses } from '../../http/schemas.ts';
import { FeedbackListSchema, FeedbackQuery } from './feedback.schemas.ts';
import type { FeedbackService } from './feedback.service.ts';

export const feedbackRoutes: FastifyPluginAsyncTypebox<{ feedback: FeedbackService }> = async (
  app,
  { feedback },
) => {
  app.get(
    '/feedback',
    {
      config: { operation: 'listFeedback', permission: 'feedback.read' },
      schema: {
        operationId: 'listFeedback',
        summary: "Readers' feedback on pages, newest first",
        description:
          'What readers answered to "Was this page helpful?" on the reader site, with their messages. ' +
          "page_id: one page's feedback; omitted: the project's, on every page within the key's " +
          'versions. Feedback on deleted pages is not listed. Pass the returned cursor back for the next page.',
        tags: ['feedback'],
        querystring: FeedbackQuery,
        response: { 200: FeedbackListSchema, ...errorResponses(404) },
      },
    },
    (request) => feedback.list(contextOf(request), request.query),
  );
};
