import type { UseCaseContext } from '../../auth/actor.ts';
import type { ProjectsService, SiteTheme } from '../projects/projects.service.ts';
import type { Folder } from './import.index.ts';
import type { ImportWarning, LayoutFile, LayoutSource } from './import.plan.ts';

/*
 * The platform's reader customisation as Quire's site settings (0025-platform-git-format.md, 0029):
 * `settings.mainColour` of `developerhub.yaml` as the brand colour, `_theme/logo.*` as a `data:` URL
 * logo, `_theme/custom.css` as the site's stylesheet. The site checks each as it would from an
 * administrator; what it refuses, and what has no place in Quire's site, is a warning.
 */

const LOGO_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  svg: 'image/svg+xml',
};

/** `developerhub.yaml`'s `settings`: the brand colour, and a warning naming the others. */
export function themeSettings(
  settings: Record<string, unknown>,
  warnings: ImportWarning[],
): Pick<SiteTheme, 'siteColor'> {
  const others = Object.keys(settings).filter((k) => k !== 'mainColour');
  if (others.length > 0)
    warnings.push({
      file: 'developerhub.yaml',
      message: `The settings ${others.join(', ')} have no place in Quire's site: left out.`,
    });
  const colour = settings.mainColour;
  if (colour === undefined || colour === null || colour === '') return {};
  const written =
    typeof colour === 'number' ? String(colour) : typeof colour === 'string' ? colour.trim() : '';
  // The platform writes `5368e7`; Quire's setting is `#5368e7` (`#abc` is read as `#aabbcc`).
  const short = /^#?([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(written);
  const hex =
    short === null
      ? written.replace(/^#?/, '#')
      : `#${short
          .slice(1)
          .map((c) => c + c)
          .join('')}`;
  return { siteColor: hex };
}

/** `_theme/`: the logo and the stylesheet, and a warning naming each file left out. */
export async function readThemeFolder<F extends LayoutFile>(
  source: LayoutSource<F>,
  folder: Folder<F>,
  warnings: ImportWarning[],
): Promise<Omit<SiteTheme, 'siteColor'>> {
  const theme: Omit<SiteTheme, 'siteColor'> = {};
  const left: string[] = [];
  for (const [name, file] of [...folder.files].sort(([a], [b]) => a.localeCompare(b))) {
    const logo = /^logo\.([a-z]+)$/i.exec(name)?.[1]?.toLowerCase();
    const type = logo === undefined ? undefined : LOGO_TYPES[logo];
    if (name === 'custom.css') {
      theme.siteCss = await source.readText(file);
    } else if (type !== undefined && source.read !== undefined) {
      theme.siteLogo = `data:${type};base64,${(await source.read(file)).toString('base64')}`;
    } else {
      left.push(name);
    }
  }
  for (const [name] of folder.folders) left.push(`${name}/`);
  if (left.length > 0)
    warnings.push({
      file: `${folder.path}/`,
      message: `${left.join(', ')}: Quire's site has no place for ${left.length === 1 ? 'it' : 'them'} (its theme is a logo, a colour and a stylesheet): left out.`,
    });
  return theme;
}

/** Sets what was read; a value the site refuses, or one that replaces the project's, is a warning. */
export async function importTheme(
  ctx: UseCaseContext,
  projects: ProjectsService,
  theme: SiteTheme,
  warnings: ImportWarning[],
): Promise<void> {
  const files: Record<keyof SiteTheme, string> = {
    siteColor: 'developerhub.yaml',
    siteLogo: '_theme/',
    siteCss: '_theme/custom.css',
  };
  const { replaced, refused } = await projects.importTheme(ctx, theme);
  for (const message of refused) {
    const field = (Object.keys(files) as Array<keyof SiteTheme>).find((k) => message.startsWith(k));
    warnings.push({
      file: field === undefined ? '_theme/' : files[field],
      message: `Not kept: the site refuses it (${message}).`,
    });
  }
  if (replaced.length > 0)
    warnings.push({
      file: '_theme/',
      message: `The project's theme settings ${replaced.join(', ')} now hold the imported values.`,
    });
}
