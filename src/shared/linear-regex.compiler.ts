/** LinearRegex's compiler (linear-regex.ts): a parsed pattern to the instructions of the Pike VM. */

import { RegexSyntaxError, type Node, type Test } from './linear-regex.parser.ts';

/** Instructions a pattern may compile to: a bound on a match's cost together with the text's length. */
export const MAX_PROGRAM = 4_000;

export type Inst =
  | { op: 'char'; test: Test }
  | { op: 'split'; a: number; b: number }
  | { op: 'jmp'; to: number }
  | { op: 'save'; slot: number }
  | { op: 'bol' }
  | { op: 'eol' }
  | { op: 'match' };

export class Compiler {
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
export function literalPrefix(node: Node): string {
  const items = node.t === 'cat' ? node.items : [node];
  let prefix = '';
  for (const item of items) {
    if (item.t === 'bol') continue;
    if (item.t !== 'char' || item.literal === null) break;
    prefix += item.literal;
  }
  return prefix;
}
