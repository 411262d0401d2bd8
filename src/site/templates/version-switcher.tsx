import type { ReaderVersionRow } from '../../modules/readers/readers.service.ts';
import { href, type SiteContext } from '../site.context.ts';

/** Another published version, and where the switcher leads in it (the same page, or its landing). */
export interface SwitchTarget {
  version: ReaderVersionRow;
  path: string;
}

/** A disclosure of the published versions: a list of links, no script needed. */
export function VersionSwitcher({
  site,
  current,
  targets,
}: {
  site: SiteContext;
  current: ReaderVersionRow;
  targets: SwitchTarget[];
}) {
  if (targets.length === 0) return null;
  return (
    <nav class="version-switcher" aria-label="Versions">
      <details>
        <summary>
          <span class="skip-link">Version: </span>
          {current.name}
        </summary>
        <ul>
          {targets.map((target) => (
            <li key={target.version.id}>
              <a
                href={href(site, target.path)}
                aria-current={target.version.id === current.id ? 'true' : undefined}
                hrefLang="en"
              >
                {target.version.name}
              </a>
            </li>
          ))}
        </ul>
      </details>
    </nav>
  );
}
