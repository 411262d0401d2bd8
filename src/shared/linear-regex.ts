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

import { Compiler, literalPrefix, type Inst } from './linear-regex.compiler.ts';
import { Parser } from './linear-regex.parser.ts';

export { MAX_PROGRAM } from './linear-regex.compiler.ts';
export { RegexSyntaxError } from './linear-regex.parser.ts';

/** Steps a caller lets matches take, shared by several of them (one request's rules). */
export interface MatchBudget {
  steps: number;
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
