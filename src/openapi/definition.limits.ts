import { fileProblem } from './definition.parser.ts';
import { fragmentTokens } from './json-pointer.ts';

/**
 * The validator dereferences local `$ref`s by sharing objects, then walks the result as a tree: a
 * small file whose schemas each point twice at the next one costs it 2^n steps (a "$ref bomb"). These
 * bounds are checked first, in time linear in the file, and keep one validation to about a second.
 */
const MAX_EXPANDED_NODES = 2_000_000;
/** Deeper than any real definition, shallow enough for the recursive validators' call stacks. */
const MAX_EXPANDED_DEPTH = 400;

interface Extent {
  nodes: number;
  height: number;
}

type Json = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** Throws a 400 when the document, with its local `$ref`s expanded, is too large or too deep. */
export function assertManageable(root: unknown): void {
  const memo = new Map<string, Extent>();
  const expanding = new Set<string>();
  let budget = MAX_EXPANDED_NODES;

  const spend = (n: number) => {
    budget -= n;
    if (budget < 0) {
      throw fileProblem(
        `The definition is too complex to validate: with its $ref pointers expanded it has more than ${MAX_EXPANDED_NODES} values.`,
      );
    }
  };

  const measureRef = (ref: string, depth: number): Extent => {
    let extent = memo.get(ref);
    // A circular $ref is left as it is by the validator: a leaf.
    if (extent === undefined && expanding.has(ref)) return { nodes: 1, height: 0 };
    if (extent === undefined) {
      const target = resolveLocalRef(root, ref);
      if (target === undefined) return { nodes: 1, height: 0 };
      expanding.add(ref);
      extent = measure(target, depth);
      expanding.delete(ref);
      memo.set(ref, extent);
    } else {
      spend(extent.nodes);
    }
    if (depth + extent.height > MAX_EXPANDED_DEPTH) throw tooDeep();
    return extent;
  };

  const measure = (value: unknown, depth: number): Extent => {
    if (depth > MAX_EXPANDED_DEPTH) throw tooDeep();
    spend(1);
    if (!isContainer(value)) return { nodes: 1, height: 0 };
    const ref = Array.isArray(value) ? undefined : value.$ref;
    if (typeof ref === 'string' && ref.startsWith('#')) {
      const target = measureRef(ref, depth);
      return { nodes: 1 + target.nodes, height: target.height };
    }
    let nodes = 1;
    let height = 0;
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      const extent = measure(child, depth + 1);
      nodes += extent.nodes;
      height = Math.max(height, extent.height + 1);
    }
    return { nodes, height };
  };

  measure(root, 0);
}

function tooDeep() {
  return fileProblem(
    `The definition is nested too deeply: with its $ref pointers expanded it is more than ${MAX_EXPANDED_DEPTH} levels deep.`,
  );
}

/** Follows a `#/a/b` pointer (JSON Pointer in a URI fragment) in a parsed document. */
function resolveLocalRef(root: unknown, ref: string): unknown {
  let node: unknown = root;
  for (const token of fragmentTokens(ref)) {
    if (!isContainer(node) || !Object.prototype.hasOwnProperty.call(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}
