import type { MarkdownIt, StateCore } from 'markdown-it';

const CARRIAGE_RETURNS = /\r\n?/g;
const NULS = /\0/g;

/**
 * markdown-it's first core rule, the same rewrite (line endings to `\n`, NUL to U+FFFD), with each regex
 * run only when its character occurs: almost no source holds either, and a search costs less than a
 * replace, which runs on every parse (one per plugin text and table cell as well).
 */
function normalizeRule(state: StateCore): void {
  let src = state.src;
  if (src.includes('\r')) src = src.replace(CARRIAGE_RETURNS, '\n');
  if (src.includes('\0')) src = src.replace(NULS, '\uFFFD');
  state.src = src;
}

/** Normalised link targets kept per parser; emptied, not evicted, when full. */
const NORMALIZED_LINKS = 1024;
/** Longer targets (a `data:` image) are normalised each time rather than held. */
const MAX_REMEMBERED_LINK = 512;

/**
 * Cheaper paths through work markdown-it repeats on every parse, with the same results: the source
 * normalised only where it needs it, and link targets remembered (markdown-it parses, punycode-maps and
 * percent-encodes each on every use, microseconds apiece; a page's links recur in every format it is
 * rendered to, and pages of a project link the same targets).
 */
export function useParseShortcuts(md: MarkdownIt): void {
  md.core.ruler.at('normalize', normalizeRule);
  const normalizeLink = md.normalizeLink.bind(md);
  const normalized = new Map<string, string>();
  md.normalizeLink = (url: string): string => {
    if (url.length > MAX_REMEMBERED_LINK) return normalizeLink(url);
    let link = normalized.get(url);
    if (link === undefined) {
      link = normalizeLink(url);
      if (normalized.size >= NORMALIZED_LINKS) normalized.clear();
      normalized.set(url, link);
    }
    return link;
  };
}
