import { fragmentTokens } from './json-pointer.ts';

/** A parsed definition as the reference page reads it: plain JSON values, local `$ref`s followed. */

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const textOf = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** JSON text of a value, or a string as it is. */
export const valueText = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));

/** Hops of `$ref` to `$ref` followed at most: a chain longer than this is left unresolved. */
const MAX_REF_HOPS = 16;

/** A value reached through local `$ref`s (a few hops at most), with the name the last one gave it. */
export interface Followed {
  node: unknown;
  /** the last `$ref` followed, or null */
  ref: string | null;
  /** its last segment (`Pet` of `#/components/schemas/Pet`), or null */
  name: string | null;
  /** a `$ref` that could not be followed: to another document, or to nothing */
  unresolved: string | null;
}

export function follow(root: Json, value: unknown): Followed {
  let node = value;
  let ref: string | null = null;
  for (let hops = 0; hops < MAX_REF_HOPS; hops++) {
    if (!isObject(node) || typeof node.$ref !== 'string')
      return { node, ref, name: nameOf(ref), unresolved: null };
    const next = node.$ref;
    const target = next.startsWith('#') ? pointAt(root, next) : undefined;
    if (target === undefined) return { node, ref, name: nameOf(ref), unresolved: next };
    ref = next;
    node = target;
  }
  return { node, ref, name: nameOf(ref), unresolved: ref };
}

function pointAt(root: Json, ref: string): unknown {
  let node: unknown = root;
  for (const token of fragmentTokens(ref)) {
    if (Array.isArray(node) && /^\d+$/.test(token)) node = node[Number(token)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

const nameOf = (ref: string | null): string | null =>
  ref === null ? null : (fragmentTokens(ref).at(-1) ?? null);
