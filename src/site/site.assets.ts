import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** One of the site's own files, under a name that carries a hash of its bytes. */
export interface SiteAsset {
  /** `site.3f9a1c2b7d.css` */
  name: string;
  type: string;
  body: Buffer;
}

const contentHash = (bytes: Buffer | string): string =>
  createHash('sha256').update(bytes).digest('base64url').slice(0, 12);

function load(file: string, type: string): SiteAsset {
  const body = readFileSync(new URL(`./assets/${file}`, import.meta.url));
  const dot = file.lastIndexOf('.');
  return { name: `${file.slice(0, dot)}.${contentHash(body)}${file.slice(dot)}`, type, body };
}

const SCRIPT = 'text/javascript; charset=utf-8';

/**
 * The few hundred bytes that set the reader's stored theme before the first paint, loaded without
 * `defer` in every page's head (the policy allows no inline script). Read when this module loads, so
 * that the layout can name it: its bytes, like the other assets', are fixed for the process's life.
 */
export const THEME_SCRIPT: SiteAsset = load('theme.js', SCRIPT);

/**
 * The site's stylesheet and scripts, read once when the app is built; their names change with their
 * bytes, so they are served as immutable. Any other name under `_site/` is not found: the names are
 * looked up in this table, never on the file system.
 */
export class SiteAssets {
  readonly css: SiteAsset;
  readonly js: SiteAsset;
  readonly theme: SiteAsset = THEME_SCRIPT;
  private readonly byName: ReadonlyMap<string, SiteAsset>;

  constructor() {
    this.css = load('site.css', 'text/css; charset=utf-8');
    this.js = load('site.js', SCRIPT);
    this.byName = new Map([this.css, this.js, this.theme].map((asset) => [asset.name, asset]));
  }

  get(name: string): SiteAsset | undefined {
    return this.byName.get(name);
  }
}

/**
 * A project's stylesheet: its brand colour as custom properties, then its own CSS, as a file of the
 * site (never inlined into a page). Null when the project sets neither. Its name is its bytes' hash.
 */
export function projectStylesheet(color: string | null, css: string | null): SiteAsset | null {
  const parts: string[] = [];
  // Only a colour the settings accepted (`#rrggbb`, contrast checked) is stored; checked again here
  // so that nothing else can reach the stylesheet.
  if (color !== null && /^#[0-9a-fA-F]{6}$/.test(color)) parts.push(`:root{--brand:${color}}`);
  if (css !== null && css !== '') parts.push(css);
  if (parts.length === 0) return null;
  const body = Buffer.from(parts.join('\n'));
  return { name: `project.${contentHash(body)}.css`, type: 'text/css; charset=utf-8', body };
}
