import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import type { SiteAnswer } from './site.answer.ts';
import { sendSiteAnswer } from './site.answer.ts';
import { FEEDBACK_FORM_PATH, SiteFeedback } from './site.feedback.ts';
import type { AddressContext, SiteHandler, SiteRequest } from './site.handler.ts';
import { FeedbackRefusalDocument } from './templates/feedback.tsx';

/** What answers a form posted to an address of a site, given its fields. */
type FormHandler = (ctx: AddressContext, form: URLSearchParams) => Promise<SiteAnswer>;

/** A form's body, at most: a message of 2,000 characters, each written as up to 9 bytes, fits. */
const MAX_FORM_BYTES = 32 * 1024;
const SITES_FORM = /^\/sites\/(\d{1,10})(\/_site\/[a-z-]+)$/;
const FORM = /\/_site\/[a-z-]+$/;
const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Forms posted to a site (site.md §7: reader feedback), at `{site}/_site/{form}` — `_site` is
 * reserved, so no version slug can take the address. Answered before Quire's routes and body
 * parsers, as the site's GETs are (site.routes.ts): the body is read here, as a browser's form sends
 * it, so that every refusal is the site's own page, never the API's envelope.
 */
export function registerSiteForms(app: FastifyInstance, site: SiteHandler, deps: Deps): void {
  const feedback = new SiteFeedback(site, deps);
  const forms = new Map<string, FormHandler>([
    [FEEDBACK_FORM_PATH, (ctx, form) => feedback.answer(ctx, form)],
  ]);

  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'POST') {
      done();
      return;
    }
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    void formAddress(site, request, path).then((at) => {
      const handler = at === null ? undefined : forms.get(at.path);
      if (at === null || handler === undefined) {
        done();
        return;
      }
      return serveForm(site, request, reply, at, handler);
    }, done);
  });
}

/** The site and form a POST names: `/sites/{id}/_site/…`, or `…/_site/…` below a project's host. */
async function formAddress(
  site: SiteHandler,
  request: FastifyRequest,
  path: string,
): Promise<SiteRequest | null> {
  const sites = SITES_FORM.exec(path);
  if (sites) return { projectId: Number(sites[1]), root: `/sites/${sites[1] ?? ''}`, path: sites[2] ?? '' };
  const host = request.headers.host;
  const form = FORM.exec(path);
  if (host === undefined || !form || path.startsWith('/sites/') || path.startsWith('/api/')) return null;
  const basePath = path.slice(0, form.index);
  const chosen = (await site.readers.sitesOnHost(host)).find((s) => s.basePath === basePath);
  return chosen === undefined ? null : { projectId: chosen.id, root: basePath, path: form[0] };
}

async function serveForm(
  site: SiteHandler,
  request: FastifyRequest,
  reply: FastifyReply,
  at: SiteRequest,
  handler: FormHandler,
): Promise<FastifyReply> {
  try {
    const context = await site.siteFor(request, at);
    if (context === null) return site.bareNotFound(reply);
    const ctx = { site: context, request };
    // A private project's pages take feedback from its signed-in readers alone (site.md §6); nothing
    // of the session is kept with it.
    if (!(await site.mayRead(context, request))) {
      return sendSiteAnswer(request, reply, await site.notFound(context), 'no-store');
    }
    const form = await readForm(request);
    const answer =
      typeof form === 'number'
        ? site.html(
            FeedbackRefusalDocument({
              site: context,
              title: 'Your feedback was not sent',
              text:
                form === 413
                  ? 'The form is too large to be taken.'
                  : 'The form was not sent as a browser sends a form.',
              back: null,
            }),
            form,
          )
        : await handler(ctx, form);
    // A body left unread: the connection is not reused for another request.
    if (typeof form === 'number') reply.header('connection', 'close');
    return sendSiteAnswer(request, reply, answer, 'no-store');
  } catch (error) {
    return site.unavailable(request, reply, error);
  }
}

/** The form's fields, or the status that refuses its body: 415 another type, 413 too large. */
async function readForm(request: FastifyRequest): Promise<URLSearchParams | 413 | 415> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== FORM_TYPE) return 415;
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_FORM_BYTES) return 413;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return 413;
    chunks.push(chunk);
  }
  // Bytes that are not UTF-8 become U+FFFD; URLSearchParams reads any text without throwing.
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
