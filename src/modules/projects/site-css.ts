/**
 * Why a project's stylesheet would make the reader's browser ask another site for something, or
 * null when it would not (docs/decisions/0029-site-settings-and-redirects.md). The site promises no
 * request but to itself, and a stylesheet fetches through `@import`, `url(…)` and the strings of
 * `image-set()`, `src()` and the like. So: no `@import` at all; a `url(…)` is a `data:` URL or an
 * address without scheme or host; no string starts with `//`, a scheme's `//` or `http:` and the like. Comments,
 * strings and escapes (`\68 ttps`) are read as a browser reads them, so none of them hides a URL.
 */
export function externalReference(css: string): string | null {
  const scanner = new CssScanner(css);
  return scanner.run();
}

/** A scheme's `//`, or a leading `//` (or backslashes, which browsers read as slashes). */
const NAMES_A_HOST = /^(?:[a-z][a-z0-9+.-]*:)?[\\/]{2}/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** Schemes a URL parser gives a host even without `//` (`http:evil.example`). */
const SPECIAL_SCHEME = /^(?:https?|ftp|wss?|file):/i;

/** What a browser drops from a URL before reading it: leading and trailing blanks, tabs and newlines. */
const asBrowsersReadIt = (url: string): string =>
  // eslint-disable-next-line no-control-regex
  url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');

class CssScanner {
  private at = 0;

  constructor(private readonly css: string) {}

  run(): string | null {
    const css = this.css;
    while (this.at < css.length) {
      const c = css[this.at] as string;
      if (css.startsWith('/*', this.at)) {
        const end = css.indexOf('*/', this.at + 2);
        this.at = end === -1 ? css.length : end + 2;
      } else if (c === '"' || c === "'") {
        const text = asBrowsersReadIt(this.string(c));
        if (NAMES_A_HOST.test(text) || SPECIAL_SCHEME.test(text)) {
          return `the string "${text}" names another site`;
        }
      } else if (c === '@') {
        this.at++;
        const name = this.name();
        if (name.toLowerCase() === 'import') return '@import is not allowed (the stylesheet is one file)';
      } else if (isNameStart(c) || c === '\\') {
        const name = this.name();
        if (name.toLowerCase() === 'url' && css[this.at] === '(') {
          this.at++;
          const url = asBrowsersReadIt(this.urlArgument());
          if (/^data:/i.test(url)) continue;
          if (NAMES_A_HOST.test(url) || SCHEME.test(url)) return `url(${url}) names another site`;
        }
      } else {
        this.at++;
      }
    }
    return null;
  }

  /** A name (an identifier's characters, escapes decoded) from here. */
  private name(): string {
    let name = '';
    for (;;) {
      const c = this.css[this.at];
      if (c === undefined) return name;
      if (c === '\\') {
        if (this.css[this.at + 1] === '\n' || this.css[this.at + 1] === undefined) return name;
        name += this.escape();
      } else if (isNameStart(c) || /[0-9-]/.test(c)) {
        name += c;
        this.at++;
      } else {
        return name;
      }
    }
  }

  /** A quoted string's value from its opening quote, escapes decoded. */
  private string(quote: string): string {
    this.at++;
    let value = '';
    for (;;) {
      const c = this.css[this.at];
      if (c === undefined || c === '\n') return value;
      if (c === quote) {
        this.at++;
        return value;
      }
      if (c === '\\') {
        if (this.css[this.at + 1] === '\n') {
          this.at += 2;
          continue;
        }
        value += this.escape();
        continue;
      }
      value += c;
      this.at++;
    }
  }

  /** The argument of `url(`: a quoted string, or the unquoted text up to `)`, escapes decoded. */
  private urlArgument(): string {
    while (/\s/.test(this.css[this.at] ?? '')) this.at++;
    const first = this.css[this.at];
    if (first === '"' || first === "'") return this.string(first);
    let value = '';
    for (;;) {
      const c = this.css[this.at];
      if (c === undefined || c === ')') {
        this.at++;
        return value;
      }
      if (c === '\\') {
        value += this.escape();
        continue;
      }
      value += c;
      this.at++;
    }
  }

  /** An escape at `\`: up to six hex digits (and one blank after them), or the next character. */
  private escape(): string {
    this.at++;
    const hex = /^[0-9a-fA-F]{1,6}/.exec(this.css.slice(this.at, this.at + 6));
    if (hex) {
      this.at += hex[0].length;
      if (/\s/.test(this.css[this.at] ?? '')) this.at++;
      const code = parseInt(hex[0], 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
        ? '\ufffd'
        : String.fromCodePoint(code);
    }
    const c = this.css[this.at];
    if (c === undefined) return '\ufffd';
    this.at++;
    return c;
  }
}

const isNameStart = (c: string): boolean => /[A-Za-z_]/.test(c) || c.charCodeAt(0) >= 0x80;
