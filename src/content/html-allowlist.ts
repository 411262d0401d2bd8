import sanitizeHtml from 'sanitize-html';
import { ALLOWED_TAGS, OPTIONS } from './sanitiser.ts';

/*
 * HTML output is sanitised where untrusted HTML enters (raw HTML in the source, the `custom-html` plugin),
 * and everything the renderers write themselves is written as the sanitiser would write it. The helpers
 * below state that form once, from the same OPTIONS, so the two cannot drift apart.
 */

const ALLOWED_ATTRIBUTES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(OPTIONS.allowedAttributes || {}).map(([tag, names]) => [
    tag,
    new Set(names.map((n) => (typeof n === 'string' ? n : n.name))),
  ]),
);
const URL_ATTRIBUTES: ReadonlySet<string> = new Set(OPTIONS.allowedSchemesAppliedToAttributes ?? []);
// Defaults the sanitiser applies and its type declarations do not list.
const DEFAULTS: { nonBooleanAttributes: string[]; allowedEmptyAttributes?: string[] } = sanitizeHtml.defaults;
const NON_BOOLEAN: ReadonlySet<string> = new Set(DEFAULTS.nonBooleanAttributes);
const EMPTY_ALLOWED: ReadonlySet<string> = new Set(DEFAULTS.allowedEmptyAttributes ?? []);
const SELF_CLOSING: ReadonlySet<string> = new Set(OPTIONS.selfClosing ?? []);
const IFRAME_HOSTS: ReadonlySet<string> = new Set(OPTIONS.allowedIframeHostnames ?? []);
const SCHEME = /^([a-zA-Z][a-zA-Z0-9.\-+]*):/;
// eslint-disable-next-line no-control-regex -- browsers skip these inside a URL, so the check does too
const SKIPPED_IN_URLS = /[\x00-\x20]+/g;

/** Text as the sanitiser writes it: `&`, `<` and `>` escaped, quotes left alone. */
export function escapeText(text: string): string {
  if (!/[&<>]/.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An attribute value as the sanitiser writes it. */
export function escapeAttribute(value: string): string {
  return /[&<>"]/.test(value) ? escapeText(value).replace(/"/g, '&quot;') : value;
}

function withoutComments(url: string): string {
  let href = url;
  for (;;) {
    const first = href.indexOf('<!--');
    if (first < 0) return href;
    const last = href.indexOf('-->', first + 4);
    if (last < 0) return href;
    href = href.slice(0, first) + href.slice(last + 3);
  }
}

/** Whether the allowlist keeps a URL in an attribute of a tag: its scheme (if any) must be allowed there. */
export function urlAllowed(tag: string, url: string): boolean {
  const href = withoutComments(url.replace(SKIPPED_IN_URLS, ''));
  const scheme = SCHEME.exec(href)?.[1];
  if (scheme === undefined) return !/^[/\\]{2}/.test(href) || OPTIONS.allowProtocolRelative === true;
  const byTag = OPTIONS.allowedSchemesByTag;
  const schemes = OPTIONS.allowedSchemes;
  const allowed =
    (typeof byTag === 'object' ? byTag[tag] : undefined) ?? (Array.isArray(schemes) ? schemes : []);
  return allowed.includes(scheme.toLowerCase());
}

function iframeSourceAllowed(url: string): boolean {
  try {
    const parsed = new URL(url.replace(/^(\w+:)?\s*[\\/]\s*[\\/]/, '$1//'));
    return IFRAME_HOSTS.has(parsed.hostname);
  } catch {
    return false;
  }
}

const TEXT_ALIGN = /^text-align:(?:left|right|center)$/;

/**
 * One attribute of an element the renderers write, as the allowlist leaves it: ` name="value"`, ` name`
 * for a boolean, or '' when the sanitiser would drop it (not allowed on the tag, an empty value where one
 * is needed, a URL with a scheme not allowed there, a style other than the column alignment).
 */
export function attributeHtml(tag: string, name: string, value: string): string {
  if (ALLOWED_ATTRIBUTES.get(tag)?.has(name) !== true) return '';
  if (value === '') {
    if (EMPTY_ALLOWED.has(name)) return ` ${name}=""`;
    return NON_BOOLEAN.has(name) ? '' : ` ${name}`;
  }
  if (URL_ATTRIBUTES.has(name) && !urlAllowed(tag, value)) return '';
  if (tag === 'iframe' && name === 'src' && !iframeSourceAllowed(value)) return '';
  if (name === 'style' && !TEXT_ALIGN.test(value)) return '';
  // A value outside the listed ones is emptied, and the attribute kept bare.
  if (tag === 'input' && name === 'type' && value !== 'checkbox') return ` ${name}`;
  return ` ${name}="${escapeAttribute(value)}"`;
}

/** Whether the sanitiser writes the element as one self-closed tag (`<br />`), with no closing tag. */
export function selfClosing(tag: string): boolean {
  return SELF_CLOSING.has(tag);
}

export function tagAllowed(tag: string): boolean {
  return ALLOWED_TAGS.has(tag);
}
