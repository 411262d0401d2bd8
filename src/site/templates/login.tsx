import { href, type SiteContext } from '../site.context.ts';
import { Layout } from './layout.tsx';

export interface LoginProps {
  site: SiteContext;
  /** where the reader goes once signed in: a path of the site, kept through the form */
  next: string;
  /** the address typed, shown again after a refusal */
  email?: string;
  /** what went wrong (a refused link or token, an address that is not one), or null */
  error: string | null;
  /** the form was sent: the same words whatever the address */
  sent?: boolean;
  /** the reader's own login (JWT) may also let them in: named so they know where to go */
  customLogin?: boolean;
}

/**
 * A private site's login page (site.md §6): a plain form that asks for a link by e-mail. Never
 * indexed. After the form is sent it says the same thing whatever the address.
 */
export function LoginDocument({ site, next, email, error, sent }: LoginProps) {
  const name = site.view.project.name;
  return (
    <Layout site={site} head={{ title: 'Sign in', noindex: true }} loginPage>
      <div class="layout single">
        <main id="content" tabIndex={-1}>
          <h1>Sign in</h1>
          {sent ? (
            <p class="login-notice" role="status">
              If this address has access to the {name} documentation, a sign-in link is on its way. It works
              once, for 15 minutes.
            </p>
          ) : (
            <p>
              The {name} documentation is private. Enter your e-mail address and we will send you a link to
              sign in.
            </p>
          )}
          {error !== null ? (
            <p class="login-notice login-error" role="alert">
              {error}
            </p>
          ) : null}
          <form class="login-form" action={href(site, '/login')} method="post">
            <label for="login-email">E-mail address</label>
            <input
              id="login-email"
              type="email"
              name="email"
              required
              autocomplete="email"
              maxLength={254}
              value={email ?? ''}
            />
            {next !== '/' ? <input type="hidden" name="next" value={next} /> : null}
            <button type="submit">{sent ? 'Send another link' : 'Send me a link'}</button>
          </form>
        </main>
      </div>
    </Layout>
  );
}
