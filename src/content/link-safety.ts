import type { Env, MarkdownIt, StateBlock, StateInline } from 'markdown-it';

/**
 * Where a Markdown reader that follows any URL would read a link (inline link, image, autolink) but the
 * URL is one markdown-it refuses: the opening characters, shown as text in every format. `raw` is the
 * construct as such a reader reads it (from `[` or `<`), `escapeAt` the character that, written as a
 * character reference, makes it text for every reader.
 */
export const UNSAFE_LINK_TOKEN = 'darkdown_unsafe_link';
export type UnsafeLinkMeta = { raw: string; escapeAt: number };

/** A link reference definition with such a URL: its `[` on a line of the parsed source. */
export interface UnsafeDefinition {
  line: number;
  column: number;
}

const UNSAFE_DEFINITIONS = 'darkdown_unsafe_definitions';

export function unsafeDefinitions(env: Env): readonly UnsafeDefinition[] {
  return (env[UNSAFE_DEFINITIONS] as UnsafeDefinition[] | undefined) ?? [];
}

/**
 * A browser drops ASCII tabs and line breaks anywhere in a URL and controls and spaces around it, so
 * `java&#x09;script:` (a tab once the entity is read, `%09` once markdown-it has encoded it) is a
 * `javascript:` URL to a reader that passes the destination on undecoded.
 */
// eslint-disable-next-line no-control-regex -- control characters are what is being removed
const IGNORED_BY_BROWSERS = /%(?:[01][0-9a-f]|20|7f)|[\x00-\x20\x7f]/gi;

/**
 * markdown-it's own notion of a dangerous URL (script schemes, data: but images), applied to the URL and
 * to the URL without what browsers skip.
 */
export function createLinkValidator(base: (url: string) => boolean): (url: string) => boolean {
  return (url) => base(url) && base(url.replace(IGNORED_BY_BROWSERS, ''));
}

type InlineRule = (state: StateInline, silent: boolean) => boolean;
type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

const acceptAnyUrl = (): boolean => true;

/** Which running rule markdown-it's URL check refused a URL for; rules nest through link labels. */
interface Probe {
  /** the parser's URL check, recording refusals */
  check: (url: string) => boolean;
  depth: number;
  refused: boolean[];
  /** inside a run that accepts any URL: rules run as they are */
  permissive: boolean;
  /** whether the rule probeInline or probeBlock ran last had a URL of its own refused */
  lastRefused: boolean;
}

interface RuleList<T> {
  __rules__: Array<{ name: string; fn: T; alt: string[] }>;
  at(name: string, fn: T, options?: { alt: string[] }): void;
}

/** Whether the URL check refused a URL for the rule running at `depth` (a call, so no narrowing). */
function wasRefused(probe: Probe, depth: number): boolean {
  return probe.refused[depth] === true;
}

function ruleEntry<T>(ruler: RuleList<T>, name: string): { name: string; fn: T; alt: string[] } {
  // markdown-it has no public way to wrap a rule; its rule list is the one place the original lives.
  const entry = ruler.__rules__.find((r) => r.name === name);
  if (entry === undefined) throw new Error(`markdown-it rule ${name} not found`);
  return entry;
}

function ruleNamed<T>(ruler: RuleList<T>, name: string): T {
  return ruleEntry(ruler, name).fn;
}

/** Replaces a rule by a wrapper of it, keeping its place and the chains it belongs to. */
function wrapRule<T>(ruler: RuleList<T>, name: string, wrap: (rule: T) => T): void {
  const entry = ruleEntry(ruler, name);
  ruler.at(name, wrap(entry.fn), { alt: entry.alt });
}

/** Per-parse caches of skipped positions for runs that accept any URL, kept apart from markdown-it's own. */
const permissiveCaches = new WeakMap<StateInline, Record<number, number>>();

/** Where the construct a rule reads at `start` ends when every URL is accepted, or -1 when there is none. */
function permissiveEnd(
  md: MarkdownIt,
  probe: Probe,
  rule: InlineRule,
  state: StateInline,
  start: number,
): number {
  const { cache, posMax } = state;
  let permissive = permissiveCaches.get(state);
  if (permissive === undefined) {
    permissive = {};
    permissiveCaches.set(state, permissive);
  }
  md.validateLink = acceptAnyUrl;
  state.cache = permissive;
  probe.permissive = true;
  state.pos = start;
  try {
    return rule(state, true) ? state.pos : -1;
  } finally {
    md.validateLink = probe.check;
    state.cache = cache;
    state.posMax = posMax;
    probe.permissive = false;
  }
}

/**
 * Runs an inline rule, and tells whether the URL check refused a URL of its own (not of a rule nested in
 * it): `refused` is left on the probe. Not a closure: this runs at every `[`, `![` and `<`.
 */
function probeInline(probe: Probe, rule: InlineRule, state: StateInline, silent: boolean): boolean {
  const depth = (probe.depth += 1);
  probe.refused[depth] = false;
  try {
    return rule(state, silent);
  } finally {
    probe.depth -= 1;
    probe.lastRefused = wasRefused(probe, depth);
  }
}

function probeBlock(
  probe: Probe,
  rule: BlockRule,
  state: StateBlock,
  startLine: number,
  endLine: number,
  silent: boolean,
): boolean {
  const depth = (probe.depth += 1);
  probe.refused[depth] = false;
  try {
    return rule(state, startLine, endLine, silent);
  } finally {
    probe.depth -= 1;
    probe.lastRefused = wasRefused(probe, depth);
  }
}

/**
 * Wraps an inline rule that reads URLs. When markdown-it refuses the URL of the construct starting here,
 * and a reader accepting any URL would read a link here, the opener (`[`, `![`, `<`) becomes an
 * UNSAFE_LINK_TOKEN of text. Markdown's link rule falls back to a reference link (`[a]` with `[a]:`
 * defined) when it refuses an inline destination: that link stays, and the token, holding no text, marks
 * the `(` after it. Silently (inside a link label) only one character is taken, as plain text would be,
 * so bracket matching is unchanged.
 */
function guardRule(md: MarkdownIt, probe: Probe, rule: InlineRule, opener: string): InlineRule {
  return (state, silent) => {
    const start = state.pos;
    if (probe.permissive || !state.src.startsWith(opener, start)) return rule(state, silent);
    const matched = probeInline(probe, rule, state, silent);
    if (!probe.lastRefused) return matched;
    const end = matched ? state.pos : start;
    const readerEnd = permissiveEnd(md, probe, rule, state, start);
    state.pos = end;
    if (readerEnd <= end) return matched;
    if (!silent) {
      const token = state.push(UNSAFE_LINK_TOKEN, '', 0);
      token.content = matched ? '' : opener;
      const meta: UnsafeLinkMeta = matched
        ? { raw: state.src.slice(end, readerEnd), escapeAt: 0 }
        : { raw: state.src.slice(start, readerEnd), escapeAt: opener.length - 1 };
      token.meta = meta;
    }
    if (!matched) state.pos = start + (silent ? 1 : opener.length);
    return true;
  };
}

/**
 * `^[…]` is an inline footnote to markdown-it-footnote, but `^` and a link to a reader without inline
 * footnotes (CommonMark, GitHub). When markdown-it refuses that link's URL, the footnote is not read,
 * so the link rule marks the `[` as it marks any such link.
 */
function guardInlineFootnote(
  md: MarkdownIt,
  probe: Probe,
  footnote: InlineRule,
  link: InlineRule,
): InlineRule {
  return (state, silent) => {
    const start = state.pos;
    if (probe.permissive || !state.src.startsWith('^[', start)) return footnote(state, silent);
    state.pos = start + 1;
    const matched = probeInline(probe, link, state, true);
    const end = matched ? state.pos : start + 1;
    const unsafe = probe.lastRefused && permissiveEnd(md, probe, link, state, start + 1) > end;
    state.pos = start;
    return unsafe ? false : footnote(state, silent);
  };
}

/**
 * Records a link reference definition starting at `startLine` whose URL markdown-it refuses but a reader
 * accepting any URL reads: its `[` (line and column in the parsed source), for Markdown output to escape.
 */
function recordUnsafeDefinition(
  md: MarkdownIt,
  probe: Probe,
  reference: BlockRule,
  state: StateBlock,
  startLine: number,
  endLine: number,
): void {
  md.validateLink = acceptAnyUrl;
  let readerMatches: boolean;
  try {
    readerMatches = reference(state, startLine, endLine, true);
  } finally {
    md.validateLink = probe.check;
  }
  if (!readerMatches) return;
  const at = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  const lineStart = state.src.lastIndexOf('\n', at - 1) + 1;
  const found = (state.env[UNSAFE_DEFINITIONS] ??= []) as UnsafeDefinition[];
  found.push({ line: startLine, column: at - lineStart });
}

/** Reference definitions: markdown-it reads one with a refused URL as a paragraph, a reader a definition. */
function guardReference(md: MarkdownIt, probe: Probe, reference: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    const matched = probeBlock(probe, reference, state, startLine, endLine, silent);
    if (!matched && !silent && probe.lastRefused) {
      recordUnsafeDefinition(md, probe, reference, state, startLine, endLine);
    }
    return matched;
  };
}

/**
 * `[^label]: …` defines a footnote to markdown-it-footnote, but a link reference (label `^label`) to a
 * reader without footnotes. The footnote stays; a definition with a refused URL is recorded as well.
 */
function guardFootnoteDefinition(
  md: MarkdownIt,
  probe: Probe,
  definition: BlockRule,
  reference: BlockRule,
): BlockRule {
  return (state, startLine, endLine, silent) => {
    const at = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
    if (!silent && state.src.startsWith('[^', at)) {
      probeBlock(probe, reference, state, startLine, endLine, true);
      if (probe.lastRefused) recordUnsafeDefinition(md, probe, reference, state, startLine, endLine);
    }
    return definition(state, startLine, endLine, silent);
  };
}

/**
 * Makes markdown-it's URL check (see createLinkValidator) visible: constructs whose URL it refuses are
 * marked, so Markdown output can keep every reader from following them.
 */
export function guardLinks(md: MarkdownIt): void {
  const validate = createLinkValidator(md.validateLink.bind(md));
  const probe: Probe = {
    check: (url) => {
      const ok = validate(url);
      if (!ok) probe.refused[probe.depth] = true;
      return ok;
    },
    depth: 0,
    refused: [],
    permissive: false,
    lastRefused: false,
  };
  md.validateLink = probe.check;
  const link = ruleNamed(md.inline.ruler, 'link');
  const reference = ruleNamed(md.block.ruler, 'reference');
  for (const [name, opener] of [
    ['link', '['],
    ['image', '!['],
    ['autolink', '<'],
  ] as const) {
    wrapRule(md.inline.ruler, name, (rule) => guardRule(md, probe, rule, opener));
  }
  wrapRule(md.block.ruler, 'reference', (rule) => guardReference(md, probe, rule));
  if (md.inline.ruler.__rules__.some((r) => r.name === 'footnote_inline')) {
    wrapRule(md.inline.ruler, 'footnote_inline', (rule) => guardInlineFootnote(md, probe, rule, link));
    wrapRule(md.block.ruler, 'footnote_def', (rule) => guardFootnoteDefinition(md, probe, rule, reference));
  }
}
