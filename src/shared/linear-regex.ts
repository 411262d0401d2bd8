/**
 * Regular expressions that match in time linear in the text, whatever the pattern: a Pike VM over
 * a subset of JavaScript's syntax (no backreferences, no lookaround, no flags). A project's redirect
 * rules are written by its administrators and run on requests from anyone, so a pattern such as
 * `(a+)+$` must never hold the event loop; a backtracking engine cannot promise that.
 *
 * Supported: literals, `.`, `[...]` and `[^...]` with ranges, `\d \w \s \D \W \S`, escaped
 * punctuation, `( )`, `(?: )`, `|`, `* + ?`, `{n}`, `{n,}`, `{n,m}` (lazy with `?`), `^` and `$`.
 * A pattern always matches the whole text. Whether it matches, and what its groups capture, is what
 * `new RegExp('^(?:' + pattern + ')$')` gives, except that a group inside a repetition keeps what it
 * captured in an earlier round where JavaScript forgets it.
 */

export class RegexSyntaxError extends Error {}

/** Instructions a pattern may compile to: a bound on a match's cost together with the text's length. */
export const MAX_PROGRAM = 4_000;
const MAX_REPEAT = 1_000;

type Test = (code: number) => boolean;

type Node =
  | { t: 'empty' }
  | { t: 'char'; test: Test; literal: string | null }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'group'; index: number | null; node: Node }
  | { t: 'repeat'; node: Node; min: number; max: number | null; lazy: boolean }
  | { t: 'bol' }
  | { t: 'eol' };

type Inst =
  | { op: 'char'; test: Test }
  | { op: 'split'; a: number; b: number }
  | { op: 'jmp'; to: number }
  | { op: 'save'; slot: number }
  | { op: 'bol' }
  | { op: 'eol' }
  | { op: 'match' };

/** Steps a caller lets matches take, shared by several of them (one request's rules). */
export interface MatchBudget {
  steps: number;
}

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

class Parser {
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

class Compiler {
  readonly program: Inst[] = [];

  private emit(inst: Inst): number {
    if (this.program.length >= MAX_PROGRAM) {
      throw new RegexSyntaxError('the pattern is too complex (its repetitions expand too far)');
    }
    this.program.push(inst);
    return this.program.length - 1;
  }

  node(node: Node): void {
    switch (node.t) {
      case 'empty':
        return;
      case 'char':
        this.emit({ op: 'char', test: node.test });
        return;
      case 'bol':
      case 'eol':
        this.emit({ op: node.t });
        return;
      case 'cat':
        for (const item of node.items) this.node(item);
        return;
      case 'alt': {
        const exits: number[] = [];
        const last = node.items.length - 1;
        node.items.forEach((item, i) => {
          if (i === last) {
            this.node(item);
            return;
          }
          const split = this.emit({ op: 'split', a: 0, b: 0 });
          this.node(item);
          exits.push(this.emit({ op: 'jmp', to: 0 }));
          this.program[split] = { op: 'split', a: split + 1, b: this.program.length };
        });
        for (const exit of exits) this.program[exit] = { op: 'jmp', to: this.program.length };
        return;
      }
      case 'group':
        if (node.index === null) {
          this.node(node.node);
          return;
        }
        this.emit({ op: 'save', slot: node.index * 2 });
        this.node(node.node);
        this.emit({ op: 'save', slot: node.index * 2 + 1 });
        return;
      case 'repeat':
        this.repeat(node);
        return;
    }
  }

  private repeat(node: Extract<Node, { t: 'repeat' }>): void {
    for (let i = 0; i < node.min; i++) this.node(node.node);
    if (node.max === null) {
      const loop = this.emit({ op: 'split', a: 0, b: 0 });
      this.node(node.node);
      this.emit({ op: 'jmp', to: loop });
      this.choose(loop, loop + 1, this.program.length, node.lazy);
      return;
    }
    const splits: number[] = [];
    for (let i = node.min; i < node.max; i++) {
      const split = this.emit({ op: 'split', a: 0, b: 0 });
      splits.push(split);
      this.node(node.node);
    }
    const end = this.program.length;
    for (const split of splits) this.choose(split, split + 1, end, node.lazy);
  }

  /** A split that prefers going on into `into` (greedy) or leaving to `out` (lazy). */
  private choose(split: number, into: number, out: number, lazy: boolean): void {
    this.program[split] = lazy ? { op: 'split', a: out, b: into } : { op: 'split', a: into, b: out };
  }

  finish(): Inst[] {
    this.emit({ op: 'eol' });
    this.emit({ op: 'match' });
    return this.program;
  }
}

/** The literal text every match starts with (for a cheap test before the machine runs). */
function literalPrefix(node: Node): string {
  const items = node.t === 'cat' ? node.items : [node];
  let prefix = '';
  for (const item of items) {
    if (item.t === 'bol') continue;
    if (item.t !== 'char' || item.literal === null) break;
    prefix += item.literal;
  }
  return prefix;
}

interface Thread {
  pc: number;
  caps: Array<number | undefined>;
}

export class LinearRegex {
  /** how many capturing groups the pattern has: `$1` to `$groups` name them */
  readonly groups: number;
  private readonly program: Inst[];
  private readonly prefix: string;
  private readonly marks: Int32Array;
  private generation = 0;

  /** Throws RegexSyntaxError, with a message for the person who wrote the pattern. */
  constructor(readonly source: string) {
    const parser = new Parser(source);
    const tree = parser.parse();
    const compiler = new Compiler();
    compiler.node(tree);
    this.program = compiler.finish();
    this.groups = parser.groups;
    this.prefix = literalPrefix(tree);
    this.marks = new Int32Array(this.program.length);
  }

  /**
   * The groups of a match of the whole text (index 0 is the text), or null when it does not match
   * or the budget ran out first (`budget.steps` then ends at or below 0).
   */
  match(text: string, budget: MatchBudget = { steps: Infinity }): Array<string | undefined> | null {
    if (!text.startsWith(this.prefix)) return null;
    // The marks hold 32-bit generations: a pattern kept for the life of a server starts them over
    // long before they could wrap and make a mark look current.
    if (this.generation > 0x3fff_ffff - text.length) {
      this.marks.fill(0);
      this.generation = 0;
    }
    const slots = (this.groups + 1) * 2;
    let current: Thread[] = [];
    this.generation++;
    this.add(current, 0, new Array<number | undefined>(slots).fill(undefined), 0, text.length, budget);
    let matched: Array<number | undefined> | null = null;
    for (let pos = 0; current.length > 0; pos++) {
      const next: Thread[] = [];
      this.generation++;
      const code = pos < text.length ? text.charCodeAt(pos) : -1;
      for (const thread of current) {
        if (--budget.steps <= 0) return null;
        const inst = this.program[thread.pc] as Inst;
        if (inst.op === 'match') {
          matched = thread.caps;
          break;
        }
        if (inst.op === 'char' && code !== -1 && inst.test(code)) {
          this.add(next, thread.pc + 1, thread.caps, pos + 1, text.length, budget);
        }
      }
      if (pos >= text.length) break;
      current = next;
    }
    if (matched === null) return null;
    const groups: Array<string | undefined> = [text];
    for (let g = 1; g <= this.groups; g++) {
      const start = matched[g * 2];
      const end = matched[g * 2 + 1];
      groups.push(start === undefined || end === undefined ? undefined : text.slice(start, end));
    }
    return groups;
  }

  /** Follows the instructions that consume nothing, in priority order, from `pc` at `pos`. */
  private add(
    list: Thread[],
    pc: number,
    caps: Array<number | undefined>,
    pos: number,
    length: number,
    budget: MatchBudget,
  ): void {
    if (this.marks[pc] === this.generation) return;
    this.marks[pc] = this.generation;
    budget.steps--;
    const inst = this.program[pc] as Inst;
    switch (inst.op) {
      case 'jmp':
        this.add(list, inst.to, caps, pos, length, budget);
        return;
      case 'split':
        this.add(list, inst.a, caps, pos, length, budget);
        this.add(list, inst.b, caps, pos, length, budget);
        return;
      case 'save': {
        const copy = caps.slice();
        copy[inst.slot] = pos;
        this.add(list, pc + 1, copy, pos, length, budget);
        return;
      }
      case 'bol':
        if (pos === 0) this.add(list, pc + 1, caps, pos, length, budget);
        return;
      case 'eol':
        if (pos === length) this.add(list, pc + 1, caps, pos, length, budget);
        return;
      case 'char':
      case 'match':
        list.push({ pc, caps });
        return;
    }
  }
}
