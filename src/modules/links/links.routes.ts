import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/change-context.ts';
import { errorResponses, IdParam } from '../../http/schemas.ts';
import { BrokenLinkListSchema } from './links.schemas.ts';
import type { BrokenLinksService } from './links.service.ts';

/** The broken-links report of a version (N4). */
export const linksRoutes: FastifyPluginAsyncTypebox<{ links: BrokenLinksService }> = async (
  app,
  { links },
) => {
  app.get(
    '/version/:id/broken-links',
    {
      config: { operation: 'brokenLinks', permission: 'project.read' },
      schema: {
        operationId: 'brokenLinks',
        summary: "Check the links of a version's pages",
        description:
          'Reads the draft and published contents of every page of the version for links to its pages ' +
          '(`/<documentation>/<page>`, `/<version>/<documentation>/<page>`, `[auto$]`), its references ' +
          '(`/ref/<reference>`, `/<version>/ref/<reference>`) and headings (`#fragment`), and reports ' +
          'those that lead nowhere and those readers may not be able to follow. External links are ' +
          'judged by their form only: nothing is fetched.',
        tags: ['versions'],
        params: IdParam('id', 'Version ID'),
        response: { 200: BrokenLinkListSchema, ...errorResponses(404) },
      },
    },
    (request) => links.report(contextOf(request), request.params.id),
  );
};
