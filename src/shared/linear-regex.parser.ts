/**
 * LinearRegex's parser (linear-regex.ts): a pattern's text to a tree of nodes, or a RegexSyntaxError
 * with a message for the person who wrote the pattern.
 */

export class RegexSyntaxError extends Error {}

const MAX_REPEAT = 1_000;

export type Test = (code: number) => boolean;

export type Node =
  | { t: 'empty' }
  | { t: 'char'; test: Test; literal: string | null }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'group'; index: number | null; node: Node }
  | { t: 'repeat'; node: Node; min: number; max: number | null; lazy: boolean }
  | { t: 'bol' }
  | { t: 'eol' };

const range =
  (from: number, to: number): Test =>
  (c) =>
    c >= from && c <= to;
const DIGIT: Test = range(48, 57);
const WORD: Test = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const SPACE: Test = (c) =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;
const not =
  (test: Test): Test =>
  (c) =>
    !test(c);
const LINE_END: Test = (c) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const ANY = not(LINE_END);
const CLASS_ESCAPES: Record<string, Test> = {
  d: DIGIT,
  D: not(DIGIT),
  w: WORD,
  W: not(WORD),
  s: SPACE,
  S: not(SPACE),
};
const CONTROL_ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11 };

export class Parser {
  private at = 0;
  groups = 0;

  constructor(private readonly source: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.source.length) throw this.error(`unmatched ')' at ${this.at + 1}`);
    return node;
  }

  private error(message: string): RegexSyntaxError {
    return new RegexSyntaxError(message);
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      items.push(this.sequence());
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'alt', items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      items.push(this.quantified());
    }
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? (items[0] as Node) : { t: 'cat', items };
  }

  private quantified(): Node {
    const start = this.at;
    const node = this.atom();
    const bounds = this.quantifier();
    if (bounds === null) return node;
    if (node.t === 'bol' || node.t === 'eol') {
      throw this.error(`nothing to repeat at ${start + 1} (an anchor cannot be repeated)`);
    }
    let lazy = false;
    if (this.peek() === '?') {
      this.at++;
      lazy = true;
    }
    if (this.quantifierAhead()) throw this.error(`nothing to repeat at ${this.at + 1}`);
    return { t: 'repeat', node, min: bounds.min, max: bounds.max, lazy };
  }

  private quantifierAhead(): boolean {
    const c = this.peek();
    return c === '*' || c === '+' || c === '?' || (c === '{' && this.braces(this.at) !== null);
  }

  /** `{n}`, `{n,}` or `{n,m}` at `from`, with where it ends; null when the text there is not one. */
  private braces(from: number): { min: number; max: number | null; end: number } | null {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(from, from + 24));
    if (!match) return null;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? null : Number(match[3]);
    return { min, max, end: from + match[0].length };
  }

  private quantifier(): { min: number; max: number | null } | null {
    const c = this.peek();
    if (c === '*' || c === '+' || c === '?') {
      this.at++;
      return c === '*' ? { min: 0, max: null } : c === '+' ? { min: 1, max: null } : { min: 0, max: 1 };
    }
    if (c !== '{') return null;
    const braces = this.braces(this.at);
    if (braces === null) return null;
    if (braces.max !== null && braces.max < braces.min) {
      throw this.error(`numbers out of order in {${braces.min},${braces.max}}`);
    }
    if (braces.min > MAX_REPEAT || (braces.max ?? 0) > MAX_REPEAT) {
      throw this.error(`a repetition count is at most ${MAX_REPEAT}`);
    }
    this.at = braces.end;
    return { min: braces.min, max: braces.max };
  }

  private atom(): Node {
    const position = this.at + 1;
    const c = this.source[this.at++] as string;
    switch (c) {
      case '(':
        return this.group(position);
      case '[':
        return this.characterClass(position);
      case '.':
        return { t: 'char', test: ANY, literal: null };
      case '^':
        return { t: 'bol' };
      case '$':
        return { t: 'eol' };
      case '\\':
        return this.escape(position);
      case '*':
      case '+':
      case '?':
        throw this.error(`nothing to repeat at ${position}`);
      case '{':
      case '}':
      case ']':
        throw this.error(`'${c}' at ${position} must be escaped (\\${c}) to match itself`);
      default:
        return literal(c);
    }
  }

  private group(position: number): Node {
    let index: number | null = null;
    if (this.peek() === '?') {
      if (this.source[this.at + 1] !== ':') {
        throw this.error(
          `the group at ${position} is not supported: only ( ) and (?: ) groups (no lookaround, no names)`,
        );
      }
      this.at += 2;
    } else {
      index = ++this.groups;
    }
    const node = this.alternation();
    if (this.peek() !== ')') throw this.error(`the group opened at ${position} is not closed`);
    this.at++;
    return { t: 'group', index, node };
  }

  private escape(position: number): Node {
    const c = this.source[this.at++];
    if (c === undefined) throw this.error('the pattern ends with a lone \\');
    const set = CLASS_ESCAPES[c];
    if (set !== undefined) return { t: 'char', test: set, literal: null };
    const control = CONTROL_ESCAPES[c];
    if (control !== undefined) return literal(String.fromCharCode(control));
    if (/[A-Za-z0-9]/.test(c)) {
      throw this.error(
        `\\${c} at ${position} is not supported (backreferences, word boundaries and code escapes are not)`,
      );
    }
    return literal(c);
  }

  private characterClass(position: number): Node {
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.at++;
    }
    const tests: Test[] = [];
    for (;;) {
      const c = this.source[this.at];
      if (c === undefined) throw this.error(`the character class opened at ${position} is not closed`);
      if (c === ']') {
        this.at++;
        break;
      }
      const from = this.classAtom();
      if (this.peek() === '-' && this.source[this.at + 1] !== ']' && this.source[this.at + 1] !== undefined) {
        this.at++;
        const to = this.classAtom();
        if (typeof from !== 'number' || typeof to !== 'number') {
          throw this.error(`a range in the class at ${position} cannot use \\d, \\w or \\s`);
        }
        if (to < from) throw this.error(`a range out of order in the class at ${position}`);
        tests.push(range(from, to));
      } else {
        tests.push(typeof from === 'number' ? range(from, from) : from);
      }
    }
    const inClass: Test = (code) => tests.some((test) => test(code));
    return { t: 'char', test: negated ? not(inClass) : inClass, literal: null };
  }

  /** One member of a class: a code unit, or a class escape's test. */
  private classAtom(): number | Test {
    const c = this.source[this.at++] as string;
    if (c !== '\\') return c.charCodeAt(0);
    const e = this.source[this.at++];
    if (e === undefined) throw this.error('the pattern ends with a lone \\');
    const set = CLASS_ESCAPES[e];
    if (set !== undefined) return set;
    const control = CONTROL_ESCAPES[e];
    if (control !== undefined) return control;
    if (/[A-Za-z0-9]/.test(e)) throw this.error(`\\${e} is not supported in a character class`);
    return e.charCodeAt(0);
  }
}

function literal(c: string): Node {
  const code = c.charCodeAt(0);
  return { t: 'char', test: (x) => x === code, literal: c };
}
