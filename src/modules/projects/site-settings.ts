import { InvalidFieldError } from '../../errors.ts';
import { notSameSitePath, parseRedirectRules, RedirectRuleError } from '../../shared/redirect-rules.ts';
import { externalReference } from './site-css.ts';

/**
 * The checks of a project's site settings (site.md §1–3, docs/decisions/0029-site-settings-and-redirects.md),
 * each answering the value as stored, or null to clear the setting (an empty value). Nothing here
 * fetches anything: a logo or a stylesheet is judged by its text.
 */

/** The first path segments Quire answers itself on every host, so a site under them is unreachable. */
const QUIRE_PATHS = ['api', 'healthz', 'readyz', 'metrics', 'sites'];
const MAX_BASE_PATH = 200;
const MAX_LOGO_PATH = 2_048;
/** A logo's `data:` URL travels in every page of the site. */
export const MAX_LOGO_DATA_URL = 32 * 1024;
export const MAX_SITE_CSS_BYTES = 64 * 1024;
/** WCAG 2 AA for normal text. */
export const MIN_CONTRAST = 4.5;

/** Text that UTF-8 can hold: no lone surrogate. */
const wellFormed = (text: string): boolean =>
  !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

const blank = (value: string | null | undefined): value is null | undefined | '' =>
  value === null || value === undefined || value.trim() === '';

/** An http(s) URL naming only a host (and port), or a bare host name: as `https://host` or `host`. */
export function checkedHost(value: string | null): string | null {
  if (blank(value)) return null;
  const text = value.trim();
  const isUrl = /^https?:\/\//i.test(text);
  // `host:8080` is a host and a port; `ftp://host` or `mailto:x` are URLs of another kind.
  if (!isUrl && /^[a-z][a-z0-9+.-]*:(?!\d+\/?$)/i.test(text)) {
    throw new InvalidFieldError('host', `must be an http:// or https:// URL or a host name (got '${text}')`);
  }
  const authority = isUrl ? text.replace(/^https?:\/\//i, '') : text;
  if (!/^[^/?#\\@\s]+\/?$/.test(authority)) {
    throw new InvalidFieldError(
      'host',
      `must name a host and nothing else: no path, query, fragment or user (got '${text}')`,
    );
  }
  let url: URL;
  try {
    url = new URL(isUrl ? text : `https://${text}`);
  } catch {
    throw new InvalidFieldError('host', `is not a valid host name (got '${text}')`);
  }
  if (url.hostname === '') throw new InvalidFieldError('host', `names no host (got '${text}')`);
  return isUrl ? `${url.protocol}//${url.host}` : url.host;
}

/** Segments of unreserved characters, as `/a/b`; null for the host's root. */
export function checkedBasePath(value: string | null): string | null {
  if (blank(value)) return null;
  const parts = value
    .trim()
    .split('/')
    .filter((part) => part !== '');
  if (parts.length === 0) return null;
  for (const part of parts) {
    if (!/^[A-Za-z0-9._~-]+$/.test(part) || part === '.' || part === '..') {
      throw new InvalidFieldError(
        'basePath',
        `must be a path of plain segments (letters, digits, '-', '.', '_', '~'); '${part}' is not one`,
      );
    }
  }
  const path = `/${parts.join('/')}`;
  if (path.length > MAX_BASE_PATH) {
    throw new InvalidFieldError('basePath', `must be at most ${MAX_BASE_PATH} characters`);
  }
  const first = (parts[0] as string).toLowerCase();
  if (QUIRE_PATHS.includes(first)) {
    throw new InvalidFieldError(
      'basePath',
      `cannot start with /${parts[0]}: Quire answers /api/, /healthz, /readyz, /metrics and /sites/ ` +
        'itself on every host, so the site would be out of reach',
    );
  }
  return path;
}

const LOGO_TYPES: Record<string, (bytes: Buffer) => boolean> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  webp: (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  'svg+xml': (b) => /<svg[\s>]/i.test(b.toString('utf8')),
};

/**
 * The logo: a `data:image/(png|jpeg|webp|svg+xml);base64,` URL whose bytes are that kind of image
 * (an SVG shown by `<img>` runs no script and loads nothing), or a path on the site's host that
 * something in front of Quire serves. A URL of another host is refused: the reader's browser would
 * ask that host for it, and the site makes no request but to itself.
 */
export function checkedLogo(value: string | null): string | null {
  if (blank(value)) return null;
  const text = value.trim();
  if (/^data:/i.test(text)) {
    const data = /^data:image\/(png|jpeg|webp|svg\+xml);base64,([A-Za-z0-9+/]+={0,2})$/i.exec(text);
    if (data === null) {
      throw new InvalidFieldError(
        'siteLogo',
        'must be a data:image/png, image/jpeg, image/webp or image/svg+xml URL in base64',
      );
    }
    if (text.length > MAX_LOGO_DATA_URL) {
      throw new InvalidFieldError(
        'siteLogo',
        `is ${text.length} characters as a data: URL; at most ${MAX_LOGO_DATA_URL} (it is in every page)`,
      );
    }
    const type = (data[1] as string).toLowerCase();
    const payload = data[2] as string;
    if (!LOGO_TYPES[type]?.(Buffer.from(payload, 'base64'))) {
      throw new InvalidFieldError('siteLogo', `does not hold an image/${type} (its bytes say otherwise)`);
    }
    return `data:image/${type};base64,${payload}`;
  }
  const problem = notSameSitePath(text);
  if (problem !== null) {
    const elsewhere = /^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith('//');
    throw new InvalidFieldError(
      'siteLogo',
      elsewhere
        ? "names another site: readers' browsers would fetch the logo from there, and the site makes " +
            "no request but to itself; give a data:image/...;base64, URL or a path on the site's host"
        : `is refused: ${problem}`,
    );
  }
  if (text.length > MAX_LOGO_PATH) {
    throw new InvalidFieldError('siteLogo', `must be at most ${MAX_LOGO_PATH} characters`);
  }
  return text;
}

/** WCAG 2 relative luminance of `#rrggbb` (sRGB). */
export function luminance(color: string): number {
  const channel = (i: number): number => {
    const c = parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * Where the site's stylesheet (src/site/assets/site.css) puts the brand colour in the light theme:
 * as links on the page and on the shaded backgrounds (navigation, code), and behind the white text
 * of buttons. The dark theme's links are a fixed light blue; its buttons are the same pair as here.
 */
const BRAND_PAIRS = [
  { against: '#ffffff', use: 'as link text on the page background and behind the white text of buttons' },
  { against: '#f4f6f8', use: 'as link text on the shaded background of the navigation and code' },
];

/** `#rrggbb` (lower-cased) whose every use keeps WCAG AA text contrast. */
export function checkedColor(value: string | null): string | null {
  if (blank(value)) return null;
  const text = value.trim();
  if (!/^#[0-9a-f]{6}$/i.test(text)) {
    throw new InvalidFieldError('siteColor', `must be a colour written #RRGGBB (got '${text}')`);
  }
  const color = text.toLowerCase();
  for (const { against, use } of BRAND_PAIRS) {
    const ratio = contrastRatio(color, against);
    if (ratio < MIN_CONTRAST) {
      // Shown rounded down, so that a refused colour never reads as 4.50:1.
      const shown = (Math.floor(ratio * 100) / 100).toFixed(2);
      throw new InvalidFieldError(
        'siteColor',
        `${color} has a contrast ratio of ${shown}:1 against ${against} ${use}; WCAG AA needs at ` +
          `least ${MIN_CONTRAST}:1: choose a darker colour`,
      );
    }
  }
  return color;
}

/** The project's stylesheet: at most 64 KiB, no `</style`, nothing fetched from another site. */
export function checkedCss(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  if (!wellFormed(value)) throw new InvalidFieldError('siteCss', 'must be UTF-8 text');
  const bytes = Buffer.byteLength(value);
  if (bytes > MAX_SITE_CSS_BYTES) {
    throw new InvalidFieldError('siteCss', `is ${bytes} bytes; at most ${MAX_SITE_CSS_BYTES} (64 KiB)`);
  }
  if (/<\/style/i.test(value)) throw new InvalidFieldError('siteCss', 'must not contain </style');
  const external = externalReference(value);
  if (external !== null) {
    throw new InvalidFieldError(
      'siteCss',
      `would make the reader's browser ask another site: ${external}; the site makes no request but ` +
        'to itself (use data: URLs or paths of the site)',
    );
  }
  return value;
}

/** The redirect rules file, kept as its text once every rule in it is one Quire can run. */
export function checkedRedirects(value: string | null): string | null {
  if (value === null || value.trim() === '') return null;
  if (!wellFormed(value)) throw new InvalidFieldError('redirects', 'must be UTF-8 text');
  try {
    parseRedirectRules(value);
  } catch (error) {
    if (error instanceof RedirectRuleError) throw new InvalidFieldError('redirects', error.message);
    throw error;
  }
  return value;
}
