import type { ProjectSettings } from '../../auth/actor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import { parseVariables } from '../../shared/serialised.ts';
import { jwtAlgorithmOf, type JwtAlgorithm } from '../reader-login/reader-jwt-key.ts';
import type { ProjectRow } from './projects.repository.ts';

export interface ProjectRecord extends ProjectSettings {
  /** what `%name%` and `%a.b%` in its pages read */
  variables: Readonly<Record<string, unknown>>;
  /** the site's theme: a data: URL or a path of the site's host; `#rrggbb`; the stylesheet's text */
  siteLogo: string | null;
  siteColor: string | null;
  siteCss: string | null;
  /** the redirect rules file's text */
  redirects: string | null;
  /** the algorithm of the key its own login signs readers' tokens with, or null (never the key) */
  readerJwtKey: JwtAlgorithm | null;
  created: string;
  updated: string;
}

export function projectSettings(row: ProjectRow): ProjectSettings {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    access: row.access,
    basePath: row.base_path,
    host: row.host,
  };
}

export function presentProject(row: ProjectRow): ProjectRecord {
  return {
    ...projectSettings(row),
    variables: parseVariables(row.variables),
    siteLogo: row.site_logo,
    siteColor: row.site_color,
    siteCss: row.site_css,
    redirects: row.site_redirects,
    readerJwtKey: jwtAlgorithmOf(row.reader_jwt_key),
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  };
}
