import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { MAX_FEEDBACK_MESSAGE } from '../modules/feedback/feedback.schemas.ts';
import type { FeedbackService } from '../modules/feedback/feedback.service.ts';
import type { CounterStore } from '../ratelimit/counter-store.ts';
import { parseAddress } from './site.address.ts';
import type { SiteAnswer } from './site.answer.ts';
import { href, type SiteContext } from './site.context.ts';
import type { AddressContext, SiteHandler } from './site.handler.ts';

/** A page that takes feedback: its id, and its title and address on the site. */
interface FeedbackPage {
  id: number;
  title: string;
  path: string;
}
import { FEEDBACK_THANKS, FeedbackRefusalDocument } from './templates/feedback.tsx';

/** Where pages send "Was this page helpful?", below the site's root: `_site` is no version's slug. */
export const FEEDBACK_FORM_PATH = '/_site/feedback';
/** Feedback per client address and window, before RATE_LIMIT_SCALE: a reader of many pages fits. */
const FEEDBACK_LIMIT = 20;
const FEEDBACK_WINDOW_MS = 60 * 60_000;
/** The longest `page` field taken: a page's path is three slugs of at most 100 characters. */
const MAX_PAGE_FIELD = 400;

export interface SiteFeedbackDeps {
  feedback: FeedbackService;
  counters: CounterStore;
  clock: Clock;
  config: Config;
}

/** C0 and C1 controls but tab and newline; halves of surrogate pairs without their other half. */
const CONTROL =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What a valid form holds. */
interface FeedbackFields {
  page: string;
  helpful: boolean;
  message: string | null;
}

/**
 * Reader feedback sent from a page (site.md §7, docs/decisions/0031-reader-feedback.md): refused
 * from another site, counted per client address, checked field by field, taken only for a page
 * readers see, then `303` back to the page's thank-you note. Every refusal is the site's own page
 * with a 4xx. Nothing is set on the reader (no cookie) and nothing of it shows on the site.
 */
export class SiteFeedback {
  private readonly limit: number;

  constructor(
    private readonly site: SiteHandler,
    private readonly deps: SiteFeedbackDeps,
  ) {
    this.limit = Math.max(1, Math.floor(FEEDBACK_LIMIT * deps.config.rateLimitScale));
  }

  async answer({ site, request }: AddressContext, form: URLSearchParams): Promise<SiteAnswer> {
    if (fromAnotherSite(request, site)) {
      return this.refusal(site, 403, 'This form was sent from another site, so it was not taken.', null);
    }
    const wait = await this.overLimit(request);
    if (wait !== null) {
      const answer = this.refusal(
        site,
        429,
        `Too much feedback from this address. Try again in ${inWords(wait)}.`,
        null,
      );
      return { ...answer, headers: { 'retry-after': String(wait) } };
    }
    const fields = readFields(form);
    if (typeof fields === 'string') {
      const from = await this.pageOf(site, form.get('page') ?? '');
      return this.refusal(site, 400, fields, from);
    }
    const page = await this.pageOf(site, fields.page);
    const taken =
      page !== null &&
      (await this.deps.feedback.submit({
        projectId: site.view.project.id,
        pageId: page.id,
        helpful: fields.helpful,
        message: fields.message,
      }));
    if (!taken) {
      return this.refusal(site, 404, 'There is no page at this address that takes feedback.', null);
    }
    const location = `${href(site, page.path)}#${FEEDBACK_THANKS}`;
    return { status: 303, type: 'text/plain; charset=utf-8', body: `See ${location}`, location };
  }

  /**
   * The page a form names, when readers can read it at its address (published, in a published section
   * and version; listed or not, as every page the site serves ends with the form).
   */
  private async pageOf(site: SiteContext, path: string): Promise<FeedbackPage | null> {
    if (!path.startsWith('/') || path.length > MAX_PAGE_FIELD) return null;
    const address = parseAddress(path);
    if (address.kind !== 'page') return null;
    const navigation = await this.site.navigation(site, address.version);
    const section = navigation?.bySlug.get(address.section);
    if (!navigation || !section) return null;
    const row = await this.site.readers.readablePage(section.id, address.page);
    if (!row) return null;
    return { id: row.id, title: row.title, path: `/${navigation.version.slug}/${section.slug}/${row.slug}` };
  }

  private refusal(
    site: SiteContext,
    status: 400 | 403 | 404 | 429,
    text: string,
    back: FeedbackPage | null,
  ): SiteAnswer {
    return this.site.html(
      FeedbackRefusalDocument({ site, title: 'Your feedback was not sent', text, back }),
      status,
    );
  }

  /**
   * Seconds to wait when the client address has sent its feedback of the window, else null. A
   * counter store that fails (Redis away) admits the request, as the site's search does.
   */
  private async overLimit(request: FastifyRequest): Promise<number | null> {
    const now = this.deps.clock.now();
    try {
      const counted = await this.deps.counters.increment(
        `site-feedback:${request.ip}`,
        FEEDBACK_WINDOW_MS,
        now,
      );
      if (counted.count <= this.limit) return null;
      return Math.max(1, Math.ceil((counted.resetAt - now) / 1000));
    } catch (error) {
      request.log.warn({ err: error }, 'the site could not count feedback; admitted');
      return null;
    }
  }
}

/**
 * Whether the browser says the form came from another site: `Sec-Fetch-Site: cross-site`, or an
 * `Origin` (else a `Referer`) whose host is neither the request's nor the project's own. `Origin:
 * null` (a sandboxed or privacy-stripped sender) is another site. Neither header: taken, as old
 * browsers and some privacy settings send none, and no reader's session is at stake (the site sets
 * no cookie): the rate limit bounds what such posts can do.
 */
export function fromAnotherSite(request: FastifyRequest, site: SiteContext): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return true;
  const sender = request.headers.origin ?? request.headers.referer;
  if (sender === undefined) return false;
  let host: string;
  try {
    host = new URL(sender).host.toLowerCase();
  } catch {
    return true;
  }
  const own = [request.host.toLowerCase(), hostOf(site.canonicalRoot)];
  return !own.includes(host);
}

/** A wait in seconds as a reader reads it: seconds under two minutes, else minutes. */
const inWords = (seconds: number): string =>
  seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
};

/** The form's fields, or why they are not taken (one sentence for the reader). */
export function readFields(form: URLSearchParams): FeedbackFields | string {
  const pages = form.getAll('page');
  const answers = form.getAll('helpful');
  const messages = form.getAll('message');
  const page = pages[0];
  if (pages.length !== 1 || page === undefined || page.length > MAX_PAGE_FIELD || !page.startsWith('/')) {
    return 'The form does not name the page it was sent from.';
  }
  const answer = answers[0];
  if (answers.length !== 1 || (answer !== 'yes' && answer !== 'no')) {
    return 'Answer "Yes" or "No" to send your feedback.';
  }
  if (messages.length > 1) return 'The form holds more than one message.';
  const message = (messages[0] ?? '').replace(/\r\n?/g, '\n').replace(CONTROL, '').trim();
  const length = [...message].length;
  if (length > MAX_FEEDBACK_MESSAGE) {
    return `Your message is ${length.toLocaleString('en')} characters long; messages are at most ${MAX_FEEDBACK_MESSAGE.toLocaleString('en')}. Shorten it and send it again.`;
  }
  return { page, helpful: answer === 'yes', message: message === '' ? null : message };
}
