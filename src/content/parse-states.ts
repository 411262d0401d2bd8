import MarkdownItConstructor, {
  type Delimiter,
  type Env,
  type MarkdownIt,
  type StateBlock,
  type StateInline,
  type Token,
} from 'markdown-it';

/*
 * markdown-it 15's published build sets class fields through a shared `defineProperty` helper, so every
 * Token and every inline state assigns each field through one megamorphic keyed lookup and store. That
 * was the largest single cost of a render (about a sixth of it: a page makes hundreds of tokens). The
 * classes below build the same objects, field for field and in the same order, by plain assignment; the
 * prototypes are markdown-it's own, so every method, `instanceof` and plugin sees what it always saw.
 * They are installed on one parser instance (`useDirectStates`), never on markdown-it's classes.
 */

const {
  Token: BaseToken,
  StateCore: BaseStateCore,
  StateBlock: BaseStateBlock,
  StateInline: BaseStateInline,
} = MarkdownItConstructor;

type TokenNesting = Token['nesting'];

/** A Token with its fields assigned in the order markdown-it's constructor defines them. */
const DirectToken = function (this: Token, type: string, tag: string, nesting: TokenNesting): void {
  this.map = null;
  this.level = 0;
  this.children = null;
  this.content = '';
  this.markup = '';
  this.info = '';
  this.block = false;
  this.hidden = false;
  this.type = type;
  this.tag = tag;
  this.attrs = null;
  this.nesting = nesting;
  this.meta = null;
} as unknown as typeof BaseToken;
DirectToken.prototype = BaseToken.prototype;

class DirectStateCore extends BaseStateCore {
  constructor(src: string, md: MarkdownIt, env: Env) {
    super(src, md, env);
    this.Token = DirectToken;
  }
}

/**
 * Block state, fields in markdown-it's order. Its constructor reads the source character by character to
 * mark the lines; this finds line ends with indexOf and reads only each line's indent, to the same marks:
 * `bMarks` where a line starts, `eMarks` at its line feed (or the end), `tShift` the count of leading
 * spaces and tabs, `sCount` their width with tabs to the next multiple of 4. As in markdown-it, a last
 * line of only spaces and tabs, without a line feed, gets no marks.
 */
const DirectStateBlock = function (
  this: StateBlock,
  src: string,
  md: MarkdownIt,
  env: Env,
  tokens: Token[],
): void {
  const bMarks: number[] = [];
  const eMarks: number[] = [];
  const tShift: number[] = [];
  const sCount: number[] = [];
  const bsCount: number[] = [];
  this.bMarks = bMarks;
  this.eMarks = eMarks;
  this.tShift = tShift;
  this.sCount = sCount;
  this.bsCount = bsCount;
  this.blkIndent = 0;
  this.line = 0;
  this.lineMax = 0;
  this.tight = false;
  this.listIndent = -1;
  this.parentType = 'root';
  this.level = 0;
  this.Token = DirectToken;
  this.src = src;
  this.md = md;
  this.env = env;
  this.tokens = tokens;
  const length = src.length;
  let start = 0;
  while (start < length) {
    let pos = start;
    let indent = 0;
    let offset = 0;
    for (; pos < length; pos += 1) {
      const c = src.charCodeAt(pos);
      if (c === 0x20) offset += 1;
      else if (c === 0x09) offset += 4 - (offset % 4);
      else break;
      indent += 1;
    }
    if (pos === length) break;
    const lineFeed = src.indexOf('\n', pos);
    const end = lineFeed < 0 ? length : lineFeed;
    bMarks.push(start);
    eMarks.push(end);
    tShift.push(indent);
    sCount.push(offset);
    bsCount.push(0);
    start = end + 1;
  }
  bMarks.push(length);
  eMarks.push(length);
  tShift.push(0);
  sCount.push(0);
  bsCount.push(0);
  this.lineMax = bMarks.length - 1;
} as unknown as typeof BaseStateBlock;

DirectStateBlock.prototype = Object.create(BaseStateBlock.prototype) as StateBlock;

DirectStateBlock.prototype.push = function (
  this: StateBlock,
  type: string,
  tag: string,
  nesting: TokenNesting,
): Token {
  const token = new DirectToken(type, tag, nesting);
  token.block = true;
  if (nesting < 0) this.level -= 1;
  token.level = this.level;
  if (nesting > 0) this.level += 1;
  this.tokens.push(token);
  return token;
};

type InlineMeta = StateInline['tokens_meta'][number];

/**
 * Inline state, made once per inline token (dozens a page): fields assigned as markdown-it's constructor
 * defines them, and its token-making methods with DirectToken.
 */
const DirectStateInline = function (
  this: StateInline,
  src: string,
  md: MarkdownIt,
  env: Env,
  outTokens: Token[],
): void {
  this.pos = 0;
  this.level = 0;
  this.pending = '';
  this.pendingLevel = 0;
  this.cache = {};
  this.backticks = {};
  this.backticksScanned = false;
  this.skipHtmlSpecial = false;
  this.linkLevel = 0;
  this.delimiters = [];
  this._prev_delimiters = [];
  this.Token = DirectToken;
  this.src = src;
  this.env = env;
  this.md = md;
  this.tokens = outTokens;
  this.tokens_meta = new Array<InlineMeta>(outTokens.length);
  this.posMax = src.length;
} as unknown as typeof BaseStateInline;

DirectStateInline.prototype = Object.create(BaseStateInline.prototype) as StateInline;

DirectStateInline.prototype.pushPending = function (this: StateInline): Token {
  const token = new DirectToken('text', '', 0);
  token.content = this.pending;
  token.level = this.pendingLevel;
  this.tokens.push(token);
  this.pending = '';
  return token;
};

DirectStateInline.prototype.push = function (
  this: StateInline,
  type: string,
  tag: string,
  nesting: TokenNesting,
): Token {
  if (this.pending !== '') this.pushPending();
  const token = new DirectToken(type, tag, nesting);
  let meta: InlineMeta;
  if (nesting < 0) {
    this.level -= 1;
    // as in markdown-it: every close follows its open, so there is a list to take back
    this.delimiters = this._prev_delimiters.pop() as Delimiter[];
  }
  token.level = this.level;
  if (nesting > 0) {
    this.level += 1;
    this._prev_delimiters.push(this.delimiters);
    this.delimiters = [];
    meta = { delimiters: this.delimiters };
  }
  this.pendingLevel = this.level;
  this.tokens.push(token);
  this.tokens_meta.push(meta);
  return token;
};

/** ASCII punctuation, which in ASCII is exactly what markdown-it counts as punctuation or a symbol. */
function isAsciiPunctuation(c: number): boolean {
  return (
    (c >= 0x21 && c <= 0x2f) ||
    (c >= 0x3a && c <= 0x40) ||
    (c >= 0x5b && c <= 0x60) ||
    (c >= 0x7b && c <= 0x7e)
  );
}

/** Tab, line feed, vertical tab, form feed, carriage return, space: markdown-it's whitespace in ASCII. */
function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * Whether a run of `*`, `_` or `~` can open or close emphasis. markdown-it tests the characters either
 * side against Unicode's punctuation and symbol classes, a large regex on a one-character string, at
 * every run; in ASCII, the usual case, the same answer needs no regex. Other characters (and surrogates)
 * go to markdown-it's own.
 */
DirectStateInline.prototype.scanDelims = function (this: StateInline, start: number, canSplitWord: boolean) {
  const src = this.src;
  const max = this.posMax;
  const marker = src.charCodeAt(start);
  const last = start === 0 ? 0x20 : src.charCodeAt(start - 1);
  let pos = start;
  while (pos < max && src.charCodeAt(pos) === marker) pos += 1;
  const next = pos < max ? src.charCodeAt(pos) : 0x20;
  if (last >= 0x80 || next >= 0x80)
    return BaseStateInline.prototype.scanDelims.call(this, start, canSplitWord);
  const lastPunctuation = isAsciiPunctuation(last);
  const nextPunctuation = isAsciiPunctuation(next);
  const lastWhitespace = isAsciiWhitespace(last);
  const nextWhitespace = isAsciiWhitespace(next);
  const leftFlanking = !nextWhitespace && (!nextPunctuation || lastWhitespace || lastPunctuation);
  const rightFlanking = !lastWhitespace && (!lastPunctuation || nextWhitespace || nextPunctuation);
  return {
    can_open: leftFlanking && (canSplitWord || !rightFlanking || lastPunctuation),
    can_close: rightFlanking && (canSplitWord || !leftFlanking || nextPunctuation),
    length: pos - start,
  };
};

const SAMPLE = ' a\n\t b\n  \n\n  c *d*  \n \t';

function sameShape(a: object, b: object): boolean {
  return Object.keys(a).join() === Object.keys(b).join();
}

/**
 * Whether these classes still build what markdown-it's do: the same fields in the same order, and the
 * same line marks. They copy constructors of one markdown-it version; a version that adds a field or
 * reads lines otherwise fails this, and its own classes are kept.
 */
function matchesMarkdownIt(md: MarkdownIt): boolean {
  const env = {};
  const block = new BaseStateBlock(SAMPLE, md, env, []);
  const direct = new DirectStateBlock(SAMPLE, md, env, []);
  const marks = (state: StateBlock): string =>
    JSON.stringify([state.bMarks, state.eMarks, state.tShift, state.sCount, state.bsCount, state.lineMax]);
  return (
    sameShape(new BaseToken('a', 'b', 1), new DirectToken('a', 'b', 1)) &&
    sameShape(block, direct) &&
    marks(block) === marks(direct) &&
    sameShape(new BaseStateInline(SAMPLE, md, env, []), new DirectStateInline(SAMPLE, md, env, [])) &&
    sameShape(new BaseStateCore(SAMPLE, md, env), new DirectStateCore(SAMPLE, md, env))
  );
}

/** Makes one parser build its states and tokens by plain assignment (see above). */
export function useDirectStates(md: MarkdownIt): void {
  if (!matchesMarkdownIt(md)) return;
  md.core.State = DirectStateCore;
  md.block.State = DirectStateBlock;
  md.inline.State = DirectStateInline;
}
