import type { ChangeCollector, Direction } from './definition-diff.types.ts';
import type { Json } from './reference-json.ts';

/**
 * The bounds of one schema against its new form: lengths, item and property counts, numeric
 * ranges (3.0's boolean `exclusiveMaximum` beside `maximum` and 3.1's numeric one alike),
 * `multipleOf` and `pattern`. Judged from the writer's side, as types and enums are: in a request a
 * tighter bound rejects values the client sent before (breaking); in a response a looser one lets
 * the server send values the client never expected (breaking).
 */

interface Bound {
  value: number;
  exclusive: boolean;
}

/** Count bounds: [lower keyword, upper keyword]. Absent, a lower one is 0 and an upper one none. */
const COUNTS = [
  ['minLength', 'maxLength'],
  ['minItems', 'maxItems'],
  ['minProperties', 'maxProperties'],
] as const;

export function diffBounds(
  a: Json,
  b: Json,
  where: string,
  direction: Direction,
  out: ChangeCollector,
): void {
  const report = (narrowed: boolean, message: string): void => {
    if (direction === 'request') out.add(narrowed ? 'bound.narrowed' : 'bound.widened', where, message);
    else out.add(narrowed ? 'response-bound.narrowed' : 'response-bound.widened', where, message);
  };
  for (const [low, high] of COUNTS) {
    const [lowBefore, lowAfter] = [count(a[low]), count(b[low])];
    if ((lowBefore ?? 0) !== (lowAfter ?? 0)) {
      report((lowAfter ?? 0) > (lowBefore ?? 0), change(low, lowBefore, lowAfter));
    }
    const [highBefore, highAfter] = [count(a[high]), count(b[high])];
    if (highBefore !== highAfter) {
      report(
        highAfter !== null && (highBefore === null || highAfter < highBefore),
        change(high, highBefore, highAfter),
      );
    }
  }
  numericRange(a, b, report);
  multipleOf(a, b, report);
  pattern(a, b, where, direction, out);
}

type Report = (narrowed: boolean, message: string) => void;

function numericRange(a: Json, b: Json, report: Report): void {
  for (const side of ['minimum', 'maximum'] as const) {
    const [before, after] = [bound(a, side), bound(b, side)];
    if (sameBound(before, after)) continue;
    // An upper bound tightens when it falls (or becomes exclusive); a lower one when it rises.
    const sign = side === 'maximum' ? 1 : -1;
    const narrowed = after !== null && (before === null || tighter(after, before, sign));
    report(narrowed, change(side, before && describe(before), after && describe(after)));
  }
}

/** `maximum` or `minimum` as one bound: the tighter of the inclusive and the exclusive form. */
function bound(schema: Json, side: 'minimum' | 'maximum'): Bound | null {
  const exclusiveKey = side === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum';
  const inclusive = finite(schema[side]);
  const exclusiveValue = schema[exclusiveKey];
  const sign = side === 'maximum' ? 1 : -1;
  let result: Bound | null =
    inclusive === null ? null : { value: inclusive, exclusive: exclusiveValue === true };
  const numeric = finite(exclusiveValue);
  if (numeric !== null) {
    const candidate = { value: numeric, exclusive: true };
    if (result === null || tighter(candidate, result, sign)) result = candidate;
  }
  return result;
}

/** Whether `x` admits fewer values than `y` (sign 1: upper bounds; -1: lower bounds). */
const tighter = (x: Bound, y: Bound, sign: number): boolean =>
  x.value * sign < y.value * sign || (x.value === y.value && x.exclusive && !y.exclusive);

const sameBound = (x: Bound | null, y: Bound | null): boolean =>
  x === y || (x !== null && y !== null && x.value === y.value && x.exclusive === y.exclusive);

const describe = (b: Bound): string => `${b.value}${b.exclusive ? ' (exclusive)' : ''}`;

function multipleOf(a: Json, b: Json, report: Report): void {
  const [before, after] = [positive(a.multipleOf), positive(b.multipleOf)];
  if (before === after) return;
  // Every multiple of 6 is one of 3: the new factor loosens only when it divides the old one.
  const widened = after === null || (before !== null && Number.isInteger(before / after));
  report(!widened, change('multipleOf', before, after));
}

function pattern(a: Json, b: Json, where: string, direction: Direction, out: ChangeCollector): void {
  const [before, after] = [text(a.pattern), text(b.pattern)];
  if (before === after) return;
  const message = change('pattern', before, after);
  if (direction === 'request') {
    // A pattern removed accepts more; a new or changed one may reject what was accepted.
    out.add(after === null ? 'pattern.removed' : 'pattern.changed', where, message);
  } else {
    // A pattern added only narrows what is sent; one removed or changed may let anything through.
    out.add(before === null ? 'response-pattern.added' : 'response-pattern.changed', where, message);
  }
}

function change(keyword: string, before: string | number | null, after: string | number | null): string {
  if (before === null) return `new ${keyword} ${String(after)}`;
  if (after === null) return `${keyword} ${String(before)} was removed`;
  return `${keyword} ${String(before)} became ${String(after)}`;
}

const finite = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;
const count = (value: unknown): number | null => {
  const n = finite(value);
  return n !== null && n >= 0 ? n : null;
};
const positive = (value: unknown): number | null => {
  const n = finite(value);
  return n !== null && n > 0 ? n : null;
};
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
