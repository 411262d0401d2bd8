/**
 * A search query as readers type it: words, `"exact phrases"`, `-excluded` words (or `-"phrases"`);
 * the last word, when the query does not end with a space, also matches as a prefix
 * (search-as-you-type). Only letters and digits make words: every other character separates them,
 * so no input reaches an engine's query syntax (FTS5 operators, tsquery operators, quotes, `*`).
 */
export interface ParsedQuery {
  /** each must match: one word, or a phrase of consecutive words */
  required: Term[];
  /** none may match */
  excluded: Term[];
}

export interface Term {
  words: string[];
  /** the term's last word also matches words it begins */
  prefix: boolean;
}

/** Words that carry no meaning on their own (PostgreSQL's English list); dropped outside phrases. */
const STOP_WORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she ' +
    'her hers herself it its itself they them their theirs themselves what which who whom this that ' +
    'these those am is are was were be been being have has had having do does did doing a an the and ' +
    'but if or because as until while of at by for with about against between into through during ' +
    'before after above below to from up down in out on off over under again further then once here ' +
    'there when where why how all any both each few more most other some such no nor not only own ' +
    'same so than too very s t can will just don should now'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;
/** Terms past this many are ignored: no reader types more, and each costs the engine a lookup. */
const MAX_TERMS = 32;

const wordsOf = (text: string): string[] => (text.toLowerCase().match(WORD) ?? []).map((w) => w.slice(0, 64));

export function parseQuery(query: string): ParsedQuery {
  const required: Term[] = [];
  const excluded: Term[] = [];
  const normalised = query.normalize('NFC');
  // A phrase is what lies between a pair of double quotes; an unbalanced quote is a separator.
  const pattern = /(-?)"([^"]*)"|(-?)([^\s"]+)/g;
  let last: Term | null = null;
  for (const match of normalised.matchAll(pattern)) {
    const negated = (match[1] ?? match[3]) === '-';
    const isPhrase = match[2] !== undefined;
    const words = wordsOf(isPhrase ? (match[2] ?? '') : (match[4] ?? ''));
    if (words.length === 0) continue;
    const terms: Term[] = isPhrase
      ? [{ words, prefix: false }]
      : words.filter((w) => !STOP_WORDS.has(w)).map((w) => ({ words: [w], prefix: false }));
    for (const term of terms) (negated ? excluded : required).push(term);
    last =
      !negated && !isPhrase && match.index + match[0].length === normalised.length
        ? (terms.at(-1) ?? null)
        : null;
  }
  if (last !== null) last.prefix = true;
  return { required: required.slice(0, MAX_TERMS), excluded: excluded.slice(0, MAX_TERMS) };
}

/** No required term: nothing can match (a query of stop words, symbols or exclusions alone). */
export const matchesNothing = (query: ParsedQuery): boolean => query.required.length === 0;

/**
 * SQLite FTS5 expressions over the searchable columns (never the `scope` column): every word a
 * quoted string, so nothing in it is an operator. `titles`: the required terms in titles alone.
 */
export function fts5Expressions(query: ParsedQuery): {
  required: string;
  titles: string;
  excluded: string | null;
} {
  const term = (t: Term) => `"${t.words.join(' ')}"${t.prefix ? '*' : ''}`;
  const required = query.required.map(term).join(' AND ');
  return {
    required: `{title content} : (${required})`,
    titles: `title : (${required})`,
    excluded:
      query.excluded.length === 0 ? null : `{title content} : (${query.excluded.map(term).join(' OR ')})`,
  };
}

/**
 * PostgreSQL `to_tsquery` input: every word quoted, phrases joined with `<->`, the prefix marked
 * `:*`. It is passed as a bound parameter; the dictionary stems each word as the index did.
 */
export function tsQuery(query: ParsedQuery): string {
  const term = (t: Term) => {
    const words = t.words.map((w) => `'${w}'`);
    if (t.prefix) words[words.length - 1] = `${words[words.length - 1]}:*`;
    return words.length === 1 ? (words[0] ?? '') : `(${words.join(' <-> ')})`;
  };
  const parts = query.required.map(term);
  for (const t of query.excluded) parts.push(`!${term(t)}`);
  return parts.join(' & ');
}
