/**
 * The `Host` a project's `host` setting names: the URL's host with its port, lower-cased; a value
 * without a scheme is read as a host name. Null when the setting names none.
 */
export function siteHostOf(host: string | null | undefined): string | null {
  if (host === null || host === undefined || host.trim() === '') return null;
  const text = host.trim();
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`).host.toLowerCase();
  } catch {
    return null;
  }
}

/** A base path as the site matches it: `/` and none are the root; otherwise `/a/b`, no trailing slash. */
export function normaliseBasePath(basePath: string | null | undefined): string {
  if (basePath === null || basePath === undefined) return '';
  const parts = basePath.split('/').filter((part) => part !== '');
  return parts.length === 0 ? '' : `/${parts.join('/')}`;
}

/**
 * The absolute root of a project's site (site.md §1): its host and base path when it has a host
 * (https unless the setting says http), else `/sites/{id}` at the origin the caller was reached on.
 */
export function siteRootOf(
  project: { id: number; host: string | null; basePath: string | null },
  requestOrigin: string,
): string {
  const host = siteHostOf(project.host);
  if (host === null) return `${requestOrigin}/sites/${project.id}`;
  const protocol = /^http:\/\//i.test(project.host?.trim() ?? '') ? 'http' : 'https';
  return `${protocol}://${host}${normaliseBasePath(project.basePath)}`;
}
