import { MAX_FEEDBACK_MESSAGE } from '../../modules/feedback/feedback.schemas.ts';
import { href, type SiteContext } from '../site.context.ts';
import { Layout } from './layout.tsx';

/** The id of the thank-you note a sent form comes back to (`#feedback-thanks`; CSS shows it). */
export const FEEDBACK_THANKS = 'feedback-thanks';

/**
 * "Was this page helpful?" at the end of a page (site.md §7): a plain form posted to the site, the
 * same bytes for every reader (no token, nothing of the reader), so the page stays one cached answer.
 * The answer is the button pressed; the message is optional. site.js sends it without leaving the page.
 */
export function FeedbackForm({ action, page }: { action: string; page: string }) {
  return (
    <section class="feedback" aria-label="Feedback">
      <form class="feedback-form" method="post" action={action}>
        <input type="hidden" name="page" value={page} />
        <fieldset>
          <legend>Was this page helpful?</legend>
          <label for="feedback-message">
            Anything to add? <span class="hint">(optional, up to 2,000 characters)</span>
          </label>
          <textarea id="feedback-message" name="message" rows={3} maxLength={MAX_FEEDBACK_MESSAGE} />
          <div class="feedback-answers">
            <button type="submit" name="helpful" value="yes">
              Yes
            </button>
            <button type="submit" name="helpful" value="no">
              No
            </button>
          </div>
        </fieldset>
        <p class="feedback-status" role="status" aria-live="polite" />
      </form>
      <p id={FEEDBACK_THANKS} class="feedback-thanks" tabIndex={-1}>
        Thank you for your feedback.
      </p>
    </section>
  );
}

export interface FeedbackRefusalProps {
  site: SiteContext;
  title: string;
  text: string;
  /** the page the form was sent from, when it is one readers can see */
  back: { title: string; path: string } | null;
}

/** Why a form sent to the site was not taken: the site's own page, never the API's envelope. */
export function FeedbackRefusalDocument({ site, title, text, back }: FeedbackRefusalProps) {
  return (
    <Layout site={site} head={{ title, noindex: true }}>
      <div class="layout single">
        <main id="content" tabIndex={-1}>
          <h1>{title}</h1>
          <p class="refusal">{text}</p>
          <p>
            {back ? (
              <a href={href(site, back.path)}>Back to {back.title}</a>
            ) : (
              <a href={href(site, '/')}>Go to the start of the documentation</a>
            )}
          </p>
        </main>
      </div>
    </Layout>
  );
}
