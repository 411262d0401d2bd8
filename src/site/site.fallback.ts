import type { FastifyReply } from 'fastify';
import { HTML } from './site.answer.ts';
import { htmlDocument } from './site.html.ts';
import { BareDocument } from './templates/bare.tsx';

/** The two answers that have no project to show: fixed documents, nothing of the request in them. */
const NO_SITE = htmlDocument(
  BareDocument({ title: 'Not found', text: 'No documentation site is at this address.' }),
);
const UNAVAILABLE = htmlDocument(
  BareDocument({
    title: 'Unavailable',
    text: 'The documentation cannot be shown right now. Try again in a moment.',
  }),
);

/** A site of no project: the not-found page without a project's header. */
export const sendNoSite = (reply: FastifyReply): FastifyReply =>
  reply
    .code(404)
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'")
    .type(HTML)
    .send(NO_SITE);

/**
 * A site that cannot answer now (its reads failed): 503, to be asked again in a moment. `policy`
 * false leaves out the policy header (the answer to a form has been sent without it).
 */
export const sendUnavailable = (reply: FastifyReply, policy = true): FastifyReply => {
  reply.code(503).header('retry-after', '2').header('cache-control', 'no-store');
  if (policy) reply.header('content-security-policy', "default-src 'none'");
  return reply.type(HTML).send(UNAVAILABLE);
};
